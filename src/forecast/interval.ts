/**
 * An 80% interval from backtest residuals (outcome minus projection, as shares of capacity): the
 * organization's own finished events, each forecast from the others at the same point of its sale
 * (jackknife residuals, as in Barber et al. 2021's jackknife+). Pure.
 *
 * Each side's width is the mean miss on that side times `tail` (a normal's 90% quantile is 3.2
 * times the mean of its positive part), not the residuals' 10% and 90% quantiles: with the 2-11
 * residuals an organization has, a quantile is one residual and swings with it, while a mean uses
 * every one, and keeps the skew (a slow start that may still surge). The small-sample widening,
 * 1 + 2/n, is more than a normal sample would need: the backtest's misses understate the
 * forecast's own (the methods' weights are chosen on those same trials), and it was calibrated on
 * the bench, not derived. Issue 45: the quantiles held the outcome 72% of the time with three or
 * four finished events and 76% on the new curve families (seeds 1-2); this holds 80-83% for any
 * number of finished events and any point of the sale (docs/forecasts.md).
 */

export interface IntervalOptions {
  /** The half-width with no residuals (share of capacity). @default 0.12 */
  priorHalfWidth?: number;
  /** Each side's width as a multiple of the mean miss on that side (calibrated in `bench/forecast.ts`). @default 3.3 */
  tail?: number;
  /** Widening for a small sample: 1 + `small` / residuals. @default 2 */
  small?: number;
  /** The least half-width: residuals that all agree do not make a certainty. @default 0.015 */
  floor?: number;
}

/** Below and above 0: the interval's ends around a projection, as shares of capacity. */
export function interval(
  residuals: readonly number[],
  options: IntervalOptions = {},
): { below: number; above: number } {
  const prior = options.priorHalfWidth ?? 0.12;
  const tail = options.tail ?? 3.3;
  const floor = options.floor ?? 0.015;
  const n = residuals.length;
  if (n === 0) return { below: -prior, above: prior };
  let up = 0;
  let down = 0;
  for (const r of residuals) {
    if (r > 0) up += r;
    else down -= r;
  }
  const widen = tail * (1 + (options.small ?? 2) / n);
  return { below: Math.min(-floor, (-widen * down) / n), above: Math.max(floor, (widen * up) / n) };
}
