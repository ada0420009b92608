import { backtest, clampTo, METHODS } from './backtest.js';
import type { Forecast, ForecastInput, ForecastOptions, SellOut } from './forecast-types.js';
import { interval } from './interval.js';
import { paceOf } from './pace-of.js';
import { type FinishedSale, finishedSale, momentOf, opensAtOf, type Sale, soldIn } from './pickup.js';

/**
 * The forecaster that learns which method to trust (issue 35): additive pickup, a regression and a
 * paced variant, aligned by share of the selling period and by time before the start, the recent
 * pace and a straight line, each backtested on the organization's own finished events at the same point of
 * their sale; the methods blend by their error (drawn towards a pooled prior when there are few
 * finished events), and the blend's backtest residuals give an 80% interval. The sell-out time
 * follows demand (`FinishedSale.demandAt`). Undefined with fewer than `minSimilar` similar finished
 * events, or with `learnFrom` 'all', fewer than `minSimilar` finished events of any size and
 * selling period (pickup reads them in shares of capacity and of the selling period, or by time
 * before the start; the backtest weighs which holds). Pure.
 */

/**
 * How many backtest trials the pooled prior weighs as. One: the organization's own events soon
 * outweigh it (three weighed too much: a straight line, best for steady sales, lost to pickup's prior).
 * Chosen with `BLEND_POWER` on the benchmark's seeds 1-5 and checked on 6-15 (docs/benchmarks.md).
 */
const PRIOR_WEIGHT = 1;
/** How sharply methods weigh by their backtest error. */
const BLEND_POWER = 3;

const similar = (a: number | undefined, b: number | undefined) =>
  a === undefined || b === undefined || (a > 0 && b > 0 && Math.max(a, b) / Math.min(a, b) <= 2);

const spanOf = (sale: Sale) => sale.startsAtMs - (sale.opensAt ?? sale.points[0]?.at ?? sale.startsAtMs);

/** How many steps the sell-out time is searched in, from now to the start. */
const SELL_OUT_STEPS = 240;

/**
 * The first time at which `sold + stretch × (path − sold)` reaches `capacity`, if before the start;
 * `path` sampled at `SELL_OUT_STEPS` even steps from `now` (exclusive) to `startsAtMs` (once, for
 * every stretch: each sample reads every finished event the methods learned from).
 */
function reaches(
  path: readonly number[],
  sold: number,
  stretch: number,
  capacity: number,
  now: number,
  startsAtMs: number,
) {
  let before = sold;
  let beforeAt = now;
  for (let s = 1; s <= path.length; s += 1) {
    const t = now + ((startsAtMs - now) * s) / path.length;
    const value = sold + stretch * ((path[s - 1] as number) - sold);
    if (value >= capacity)
      return value === before ? t : beforeAt + ((t - beforeAt) * (capacity - before)) / (value - before);
    before = value;
    beforeAt = t;
  }
  return undefined;
}

export function learnedForecast(
  input: ForecastInput,
  options: ForecastOptions = {},
  learnFrom: 'similar' | 'all' = 'similar',
): Extract<Forecast, { kind: 'forecast' }> | undefined {
  const { now, startsAtMs, points } = input;
  const last = points[points.length - 1];
  if (!last) return undefined;
  const capacity = input.capacity ?? last.capacity;
  const sale: Sale = { startsAtMs, capacity, points, opensAt: opensAtOf(points) };
  const sold = soldIn(sale, now) ?? last.sold;
  const finished = input.finished
    .map(finishedSale)
    .filter((e): e is FinishedSale => e !== undefined)
    .filter((e) => learnFrom === 'all' || (similar(e.capacity, capacity) && similar(spanOf(e), spanOf(sale))));
  if (finished.length < (options.minSimilar ?? 3)) return undefined;

  const trials = backtest(momentOf(sale, now), finished);
  // Each method's backtest error, drawn towards its pooled prior; the methods then weigh by how
  // much better than the best they did (the best weighs 1, one 10% worse about 0.75, one twice as far off 0.125).
  const scored = METHODS.flatMap(({ method, prior }, index) => {
    const projection = method.project(sale, now, finished);
    if (!projection) return [];
    let sum = 0;
    let n = 0;
    for (const trial of trials) {
      const p = trial.projected[index];
      if (p === undefined) continue;
      sum += Math.abs(trial.final - p) / trial.norm;
      n += 1;
    }
    return [{ index, projection, score: (sum + PRIOR_WEIGHT * prior) / (n + PRIOR_WEIGHT) }];
  });
  const bestScore = Math.min(...scored.map((m) => m.score));
  if (scored.length === 0 || !(bestScore > 0)) return undefined;
  const weighted = scored
    .map((m) => ({ ...m, weight: (bestScore / m.score) ** BLEND_POWER }))
    .filter((m) => m.weight > 0.01);
  const blend = (values: (number | undefined)[]) => {
    let sum = 0;
    let weights = 0;
    for (const m of weighted) {
      const v = values[m.index];
      if (v === undefined) continue;
      sum += m.weight * v;
      weights += m.weight;
    }
    return weights > 0 ? sum / weights : undefined;
  };
  const projected = (t: number | undefined) => {
    const values: (number | undefined)[] = [];
    for (const m of weighted) values[m.index] = t === undefined ? m.projection.atStart : m.projection.at(t);
    return blend(values) as number;
  };
  const chosen = {
    projection: { atStart: projected(undefined), at: (t: number) => projected(t), from: finished.length },
  };
  const residuals = trials.flatMap((t) => {
    const p = blend(t.projected);
    return p === undefined ? [] : [(t.final - p) / t.norm];
  });
  const top = weighted.reduce((a, b) => (b.weight > a.weight ? b : a));
  const likely = clampTo(chosen.projection.atStart, sold, capacity);
  const scale = capacity ?? likely;
  const { below, above } = interval(residuals);
  const atStart = {
    low: clampTo(likely + below * scale, sold, capacity),
    likely,
    high: clampTo(likely + above * scale, sold, capacity),
  };
  // The sell-out time follows demand (the finished events' sales carried on past their sell-outs),
  // not the projected sold at the start: that one is a middle of outcomes capped at capacity, which
  // stays under it whenever a sell-out is uncertain, and would put the sell-out late or never.
  let sellOut: SellOut | undefined;
  const remaining = chosen.projection.atStart - sold;
  if (options.sellOut !== false && capacity !== undefined && sold < capacity && remaining > 0) {
    const path = Array.from({ length: SELL_OUT_STEPS }, (_, i) =>
      chosen.projection.at(now + ((startsAtMs - now) * (i + 1)) / SELL_OUT_STEPS),
    );
    const at = (bound: number) => reaches(path, sold, (bound - sold) / remaining, capacity, now, startsAtMs);
    const likelyAt = at(chosen.projection.atStart);
    if (likelyAt !== undefined) {
      const earliest = at(chosen.projection.atStart + above * scale) ?? likelyAt;
      const latest = at(chosen.projection.atStart + below * scale);
      sellOut = {
        earliest: Math.min(earliest, likelyAt),
        likely: likelyAt,
        latest: latest === undefined ? undefined : Math.max(latest, likelyAt),
      };
    }
  }
  return {
    kind: 'forecast',
    method: 'booking-curve',
    learnedFrom: finished.length,
    sold,
    capacity,
    atStart,
    sellOut,
    pace: paceOf(points, now),
    basis: METHODS[top.index]?.method.name ?? 'pickup',
    coverage: 0.8,
    backtestedOn: residuals.length,
    ...(learnFrom === 'all' ? { unlike: true } : {}),
  };
}
