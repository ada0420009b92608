import type { SalesPoint } from '../history/sales-point.js';

/** The forecast's types, apart from the forecaster so that its methods can name them without a loop. */

/** What a forecast is made from: now, the event's start and capacity, its sales history, finished events to learn from. */
export interface ForecastInput {
  now: number;
  startsAtMs: number;
  capacity: number | undefined;
  points: readonly SalesPoint[];
  finished: readonly FinishedEvent[];
}

export interface ForecastOptions {
  /** Fewest points a history needs. @default 3 */
  minPoints?: number;
  /** Least time a history must span. @default 6 hours */
  minSpanMs?: number;
  /** Fewest similar finished events for the booking-curve method. @default 3 */
  minSimilar?: number;
  /** Whether to project the sell-out time (the track record needs only the sold at the start). @default true */
  sellOut?: boolean;
}

/** How fast tickets sell now. Undefined where the history does not reach back far enough. */
export interface Pace {
  /** Sold per hour over the last day. */
  perHourLastDay: number | undefined;
  /** Sold per day over the last week. */
  perDayLastWeek: number | undefined;
  /** Sold per day over the week before the last day (for "pace halves"). */
  perDayWeekBefore: number | undefined;
  /** When the history the pace is read from begins (its first point): the paces come a day and 8 days after. */
  since?: number | undefined;
}

export interface Range {
  low: number;
  likely: number;
  high: number;
}

/** When it sells out: the likely time, the earliest, and the latest (undefined: maybe never before the start). */
export interface SellOut {
  earliest: number;
  likely: number;
  latest: number | undefined;
}

export type Forecast =
  | {
      kind: 'none';
      reason: string;
      pace: Pace;
      /** When the history would allow a forecast, as reports keep coming (none: it never will, e.g. started). */
      readyAt?: number | undefined;
      /** What it needs by then, in words ("3 reports over 6 hours"). */
      needs?: string | undefined;
    }
  | {
      kind: 'forecast';
      method: 'booking-curve' | 'recent-pace';
      /** Finished events the curve was learned from (0 for the recent pace). */
      learnedFrom: number;
      sold: number;
      capacity: number | undefined;
      /** Projected sold at the event's start. */
      atStart: Range;
      /** When the likely projection reaches capacity before the start. */
      sellOut: SellOut | undefined;
      pace: Pace;
      /** Which learned method projected (e.g. `pickup-share`), when the forecast was learned by backtest. */
      basis?: string;
      /** How often the range holds the outcome (0.8: an 80% interval), when calibrated. */
      coverage?: number;
      /** Finished events the chosen method was backtested on. */
      backtestedOn?: number;
      /**
       * True when fewer than `minSimilar` finished events were similar (by capacity and selling
       * period) and it learned from all of the organization's, of other sizes or periods, in shares.
       */
      unlike?: boolean;
    };

/** A finished event of the organization: its history and what it was. */
export interface FinishedEvent {
  startsAtMs: number;
  capacity: number | undefined;
  points: readonly SalesPoint[];
}
