/**
 * The methods the forecast bench compares (`bench/forecast.ts`): the forecaster before issue 35,
 * the forecaster now (also with only two finished events), additive pickup, a straight line and
 * the recent pace.
 */
import { bookingCurveForecast } from '../src/forecast/booking-curve-forecast.js';
import { type FinishedEvent, type Forecast, forecast, paceOf, soldAt } from '../src/forecast/forecast.js';
import type { SalesPoint } from '../src/history/sales-point.js';
import { DAY } from './forecast-settings.js';

/** What a method says at one point: the projected sold at the start, its range and the sell-out time. */
export interface Said {
  likely: number;
  low?: number | undefined;
  high?: number | undefined;
  /** When it reaches capacity; null for a method that does not project a time. */
  sellOut: number | undefined | null;
}

export interface Case {
  now: number;
  startsAtMs: number;
  capacity: number;
  points: SalesPoint[];
  finished: FinishedEvent[];
}

const fromForecast = (f: Forecast): Said | undefined =>
  f.kind === 'forecast'
    ? { likely: f.atStart.likely, low: f.atStart.low, high: f.atStart.high, sellOut: f.sellOut?.likely }
    : undefined;

/** A straight line from a rate per ms: the projection at the start and when it reaches capacity. */
function byRate(c: Case, sold: number, perMs: number): Said {
  const likely = Math.min(Math.max(c.capacity, sold), sold + perMs * (c.startsAtMs - c.now));
  const t = perMs > 0 && sold < c.capacity ? c.now + (c.capacity - sold) / perMs : undefined;
  return { likely, sellOut: t !== undefined && t < c.startsAtMs ? t : undefined };
}

export const METHODS: Record<string, (c: Case) => Said | undefined> = {
  before: (c) => fromForecast(bookingCurveForecast(c)),
  forecaster: (c) => fromForecast(forecast(c)),
  // The forecaster with too few finished events to backtest on (two: as with none, the pooled prior).
  'forecaster, 2 finished': (c) => fromForecast(forecast({ ...c, finished: c.finished.slice(-2) })),
  // Additive pickup, as revenue management has it: sold now plus the average, over the finished
  // events, of (final - sold at the same share of the selling period), the history's first read
  // taken as the on-sale.
  pickup: (c) => {
    const first = c.points[0] as SalesPoint;
    const sold = soldAt(c.points, c.now) as number;
    const share = (c.now - first.at) / (c.startsAtMs - first.at);
    const pickups = c.finished.map((e) => {
      const opens = (e.points[0] as SalesPoint).at;
      const final = soldAt(e.points, e.startsAtMs) as number;
      return final - (soldAt(e.points, opens + share * (e.startsAtMs - opens)) as number);
    });
    const likely = sold + pickups.reduce((a, b) => a + b, 0) / pickups.length;
    return { likely: Math.min(Math.max(c.capacity, sold), likely), sellOut: null };
  },
  line: (c) => {
    const first = c.points[0] as SalesPoint;
    const sold = soldAt(c.points, c.now) as number;
    return byRate(c, sold, (sold - first.sold) / (c.now - first.at));
  },
  pace: (c) => {
    const sold = soldAt(c.points, c.now) as number;
    const pace = paceOf(c.points, c.now);
    const perDay = pace.perDayLastWeek ?? (pace.perHourLastDay ?? 0) * 24;
    return byRate(c, sold, perDay / DAY);
  },
};
export const NAMES = Object.keys(METHODS);
