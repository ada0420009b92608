import type { SalesPoint } from '../history/sales-point.js';
import type { Comparables } from './comparables.js';
import { type FinishedEvent, type Forecast, forecast, soldAt } from './forecast.js';

/** One watched event in a sales digest: its sales since the last digest, pace and forecast, and how the forecast moved. */
export interface SalesDigestEntry {
  eventId: string;
  eventName: string;
  startsAtMs: number;
  sold: number | undefined;
  /** Sold since the previous digest (undefined when the history does not reach back to it). */
  soldSince: number | undefined;
  forecast: Forecast;
  /**
   * How far the forecast moved since the previous digest: days the likely sell-out came sooner
   * (positive) or later, or for an event not selling out, the share of capacity its projected
   * sold at the start moved. Undefined when either forecast is missing.
   */
  moved: { days: number } | { share: number } | undefined;
  points: readonly SalesPoint[];
  /** Where it stands against the organization's similar finished events, when compared. */
  comparables?: Comparables | undefined;
}

const DAY = 86_400_000;

/**
 * A sales digest's figures, from the stored history only (no report call): each event's sales
 * since `since` (the previous digest, or a day or a week ago on the first), its pace and forecast
 * now, and how much the forecast moved since then, by reading the same history as it stood then.
 * Sorted by how much the forecast moved, the most first.
 */
export function salesDigestEntries(input: {
  now: number;
  since: number;
  events: readonly {
    eventId: string;
    eventName: string;
    startsAtMs: number;
    capacity: number | undefined;
    points: readonly SalesPoint[];
  }[];
  finished: readonly FinishedEvent[];
}): SalesDigestEntry[] {
  const entries = input.events.map((event): SalesDigestEntry => {
    const now = forecast({
      now: input.now,
      startsAtMs: event.startsAtMs,
      capacity: event.capacity,
      points: event.points,
      finished: input.finished,
    });
    const earlier = event.points.filter((p) => p.at <= input.since);
    const then = forecast({
      now: input.since,
      startsAtMs: event.startsAtMs,
      capacity: event.capacity,
      points: earlier,
      finished: input.finished,
    });
    const sold = soldAt(event.points, input.now);
    const before = soldAt(event.points, input.since);
    return {
      eventId: event.eventId,
      eventName: event.eventName,
      startsAtMs: event.startsAtMs,
      sold,
      soldSince: sold !== undefined && before !== undefined ? Math.max(0, sold - before) : undefined,
      forecast: now,
      moved: movement(then, now),
      points: event.points,
    };
  });
  return entries.sort((a, b) => size(b.moved) - size(a.moved));
}

function movement(then: Forecast, now: Forecast): SalesDigestEntry['moved'] {
  if (then.kind !== 'forecast' || now.kind !== 'forecast') return undefined;
  if (then.sellOut && now.sellOut) return { days: (then.sellOut.likely - now.sellOut.likely) / DAY };
  const capacity = now.capacity ?? then.capacity;
  if (!capacity) return undefined;
  return { share: (now.atStart.likely - then.atStart.likely) / capacity };
}

/** How much a forecast moved, comparable across events: a week earlier or later weighs as a tenth of capacity. */
const size = (moved: SalesDigestEntry['moved']) =>
  moved === undefined ? -1 : 'days' in moved ? Math.abs(moved.days) / 70 : Math.abs(moved.share);

/** Where a sales digest's "since" starts on its first run: a day or a week back. */
export function firstSince(now: number, cadence: 'daily' | 'weekly'): number {
  return now - (cadence === 'weekly' ? 7 : 1) * DAY;
}
