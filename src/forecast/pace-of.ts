import type { SalesPoint } from '../history/sales-point.js';
import type { Pace } from './forecast-types.js';
import { soldAt } from './sold-at.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Sold per ms between `from` and `to`, when the history covers `from`. */
function rate(points: readonly SalesPoint[], from: number, to: number): number | undefined {
  const a = soldAt(points, from);
  const b = soldAt(points, to);
  if (a === undefined || b === undefined || to <= from) return undefined;
  return Math.max(0, b - a) / (to - from);
}

/** The pace: per hour over the last day, per day over the last week and the week before the last day. */
export function paceOf(points: readonly SalesPoint[], now: number): Pace {
  const perMsDay = rate(points, now - DAY, now);
  const perMsWeek = rate(points, now - 7 * DAY, now);
  const perMsWeekBefore = rate(points, now - 8 * DAY, now - DAY);
  return {
    perHourLastDay: perMsDay === undefined ? undefined : perMsDay * HOUR,
    perDayLastWeek: perMsWeek === undefined ? undefined : perMsWeek * DAY,
    perDayWeekBefore: perMsWeekBefore === undefined ? undefined : perMsWeekBefore * DAY,
    ...(points[0] ? { since: points[0].at } : {}),
  };
}
