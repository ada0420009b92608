/**
 * An 80% interval from backtest residuals (outcome minus projection, as shares of capacity): their
 * 10% and 90% quantiles, widened for a small sample and drawn towards a pooled prior width when
 * there are few. Pure.
 */

const quantile = (sorted: readonly number[], q: number) => {
  const x = (sorted.length - 1) * q;
  const i = Math.floor(x);
  const a = sorted[i] as number;
  const b = sorted[Math.min(sorted.length - 1, i + 1)] as number;
  return a + (b - a) * (x - i);
};

export interface IntervalOptions {
  /** The half-width the interval is drawn towards with few residuals (share of capacity). @default 0.12 */
  priorHalfWidth?: number;
  /** How many residuals the prior weighs as. @default 3 */
  priorWeight?: number;
  /** Widening of the residuals' quantiles (calibrated in `bench/forecast.ts` to cover 80%). @default 1.15 */
  widen?: number;
}

/** The residuals' 10% and 90% quantiles (below and above 0), widened and drawn towards the prior. */
export function interval(
  residuals: readonly number[],
  options: IntervalOptions = {},
): { below: number; above: number } {
  const prior = options.priorHalfWidth ?? 0.12;
  const k = options.priorWeight ?? 3;
  const widen = options.widen ?? 1.15;
  const n = residuals.length;
  if (n === 0) return { below: -prior, above: prior };
  const sorted = [...residuals].sort((a, b) => a - b);
  // A small sample's extreme quantiles fall short of the population's: widen them.
  const small = 1 + 1 / n;
  const below = Math.min(0, quantile(sorted, 0.1)) * widen * small;
  const above = Math.max(0, quantile(sorted, 0.9)) * widen * small;
  return { below: (n * below - k * prior) / (n + k), above: (n * above + k * prior) / (n + k) };
}
