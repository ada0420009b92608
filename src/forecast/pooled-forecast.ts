import type { Forecast, ForecastInput, SellOut } from './forecast-types.js';
import { opensAtOf } from './pickup.js';

/**
 * The forecast with fewer similar finished events than a backtest needs: the recent pace kept up
 * to the start, with an 80% interval from a pooled prior instead of the organization's own
 * backtest. Pure.
 *
 * The prior is how far the recent pace missed the sold at the start across many organizations of
 * every booking-curve shape (`bench/forecast.ts`, five shapes, seeds 1-5): the 10% and 90%
 * quantiles of (outcome − projection) as a share of capacity, by the share of the sale left. It is
 * wide and skewed upwards (a sale that starts slowly may still surge), and it holds the outcome
 * about 80% of the time on seeds it was not measured on (6-15; docs/benchmarks.md).
 */

/** By the share of the sale left (from its opening, else its first report): the prior's quantiles. */
const POOLED: readonly { left: number; below: number; above: number }[] = [
  { left: 0.25, below: -0.09, above: 0.53 },
  { left: 0.5, below: -0.21, above: 0.57 },
  { left: 0.75, below: -0.19, above: 0.72 },
];

/** The prior's quantiles at `left`, by straight lines between the measured shares (the ends held beyond them). */
export function pooledInterval(left: number): { below: number; above: number } {
  const first = POOLED[0] as (typeof POOLED)[number];
  const last = POOLED[POOLED.length - 1] as (typeof POOLED)[number];
  if (left <= first.left) return first;
  if (left >= last.left) return last;
  const i = POOLED.findIndex((p) => p.left >= left);
  const a = POOLED[i - 1] as (typeof POOLED)[number];
  const b = POOLED[i] as (typeof POOLED)[number];
  const f = (left - a.left) / (b.left - a.left);
  return { below: a.below + f * (b.below - a.below), above: a.above + f * (b.above - a.above) };
}

/** The recent-pace forecast given the pooled prior's 80% interval, and sell-out times that follow it. */
export function pooledForecast(
  input: ForecastInput,
  pace: Extract<Forecast, { kind: 'forecast' }>,
): Extract<Forecast, { kind: 'forecast' }> {
  const { now, startsAtMs, points } = input;
  const { sold, capacity } = pace;
  const likely = pace.atStart.likely;
  const opens = opensAtOf(points) ?? points[0]?.at ?? now;
  const left = startsAtMs > opens ? (startsAtMs - now) / (startsAtMs - opens) : 1;
  const { below, above } = pooledInterval(left);
  const scale = capacity ?? likely;
  const clamp = (n: number) => Math.max(sold, capacity === undefined ? n : Math.min(Math.max(capacity, sold), n));
  const atStart = { low: clamp(likely + below * scale), likely, high: clamp(likely + above * scale) };
  let sellOut: SellOut | undefined = pace.sellOut;
  const remaining = likely - sold;
  if (sellOut && capacity !== undefined && remaining > 0) {
    // The pace scaled to reach the range's ends: from now to the likely sell-out at the likely pace.
    const at = (bound: number) => {
      const factor = (bound - sold) / remaining;
      if (factor <= 0) return undefined;
      const t = now + ((sellOut as SellOut).likely - now) / factor;
      return t < startsAtMs ? t : undefined;
    };
    const likelyAt = sellOut.likely;
    const earliest = at(likely + above * scale);
    const latest = at(likely + below * scale);
    sellOut = {
      earliest: Math.min(earliest ?? likelyAt, likelyAt),
      likely: likelyAt,
      latest: latest === undefined ? undefined : Math.max(latest, likelyAt),
    };
  }
  // No `basis`: nothing was learned or backtested; the card calls it a rough guess from the recent pace.
  return { ...pace, atStart, sellOut, coverage: 0.8 };
}
