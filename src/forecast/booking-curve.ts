import type { SalesPoint } from '../history/sales-point.js';
import type { FinishedEvent } from './forecast-types.js';
import { soldAt } from './sold-at.js';

const DAY = 86_400_000;
/** Shares of the selling period gone at which curves are sampled. */
export const GRID = Array.from({ length: 21 }, (_, i) => i / 20);

/** A finished event's booking curve: the share of its final sales sold by each share of its selling period gone. */
export function bookingCurve(event: FinishedEvent): number[] | undefined {
  const first = event.points[0];
  if (!first || event.points.length < 3) return undefined;
  const period = event.startsAtMs - first.at;
  if (period < DAY) return undefined;
  // Its final sales are known only if it was still read near its start (within a tenth of its
  // selling period, a day at least, a week at most): a history that stops weeks early would teach
  // a curve that is done long before the start.
  const last = event.points[event.points.length - 1] as SalesPoint;
  if (last.at < event.startsAtMs - Math.min(7 * DAY, Math.max(DAY, period / 10))) return undefined;
  const final = soldAt(event.points, event.startsAtMs);
  if (final === undefined || final <= 0) return undefined;
  return GRID.map((g) => Math.min(1, (soldAt(event.points, first.at + g * period) ?? 0) / final));
}
