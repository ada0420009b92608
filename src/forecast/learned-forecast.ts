import { backtest, clampTo, METHODS } from './backtest.js';
import type { Forecast, ForecastInput, ForecastOptions, SellOut } from './forecast-types.js';
import { interval } from './interval.js';
import { paceOf } from './pace-of.js';
import { type FinishedSale, finishedSale, momentOf, opensAtOf, type Projection, type Sale, soldIn } from './pickup.js';

/**
 * The forecaster that learns which method to trust (issue 35): additive and multiplicative pickup
 * aligned by share of the selling period and by time before the start, and a straight line, each
 * backtested on the organization's own finished events at the same point of their sale; the method
 * with the least error (drawn towards a pooled prior when there are few finished events) projects,
 * and its backtest residuals give an 80% interval. Undefined with fewer than `minSimilar` similar
 * finished events (the caller falls back). Pure.
 */

/** How many backtest trials the pooled prior weighs as. */
const PRIOR_WEIGHT = 3;
/** How sharply methods weigh by their backtest error. */
const BLEND_POWER = 2;

const similar = (a: number | undefined, b: number | undefined) =>
  a === undefined || b === undefined || (a > 0 && b > 0 && Math.max(a, b) / Math.min(a, b) <= 2);

const spanOf = (sale: Sale) => sale.startsAtMs - (sale.opensAt ?? sale.points[0]?.at ?? sale.startsAtMs);

/** The first time from `now` on at which `sold + stretch × (path − sold)` reaches `capacity`, if before the start. */
function reaches(path: Projection, sold: number, stretch: number, capacity: number, now: number, startsAtMs: number) {
  const steps = 240;
  let before = sold;
  let beforeAt = now;
  for (let s = 1; s <= steps; s += 1) {
    const t = now + ((startsAtMs - now) * s) / steps;
    const value = sold + stretch * (path.at(t) - sold);
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
    .filter((e) => similar(e.capacity, capacity) && similar(spanOf(e), spanOf(sale)));
  if (finished.length < (options.minSimilar ?? 3)) return undefined;

  const trials = backtest(momentOf(sale, now), finished);
  // Each method's backtest error, drawn towards its pooled prior; the methods then weigh by how
  // much better than the best they did (the best weighs 1, one 10% worse about 0.8, one twice as far off 0.25).
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
  let sellOut: SellOut | undefined;
  const remaining = chosen.projection.atStart - sold;
  if (capacity !== undefined && sold < capacity && remaining > 0) {
    const at = (bound: number) =>
      reaches(chosen.projection, sold, (bound - sold) / remaining, capacity, now, startsAtMs);
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
  };
}
