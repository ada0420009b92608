import type { SalesPoint } from '../history/sales-point.js';

/**
 * Sold at `t`, read off the history (oldest first) by straight lines between points; undefined
 * before its first. A binary search: forecasts read long histories many times over.
 */
export function soldAt(points: readonly SalesPoint[], t: number): number | undefined {
  const first = points[0];
  if (!first || t < first.at) return undefined;
  const last = points[points.length - 1] as SalesPoint;
  if (points.length < 2 || last.at < t) return last.sold;
  // The first point from index 1 on at or after t.
  let lo = 1;
  let hi = points.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((points[mid] as SalesPoint).at >= t) hi = mid;
    else lo = mid + 1;
  }
  const a = points[lo - 1] as SalesPoint;
  const b = points[lo] as SalesPoint;
  return b.at === a.at ? b.sold : a.sold + ((b.sold - a.sold) * (t - a.at)) / (b.at - a.at);
}
