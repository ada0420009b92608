import type { SalesHistory } from '../history/sales-history.js';
import { type SalesPoint, salesPointOf, sameFigures } from '../history/sales-point.js';
import type { EventReport } from '../ticketing/schemas.js';
import type { Clock } from '../time/clock.js';
import { type ComparableEvent, type Comparables, comparables } from './comparables.js';
import { type FinishedEvent, type Forecast, forecast } from './forecast.js';

/** What is known of an event's sales now: its history, the forecast made from it, and what it needs. */
export interface SalesInsight {
  eventId: string;
  startsAtMs: number;
  capacity: number | undefined;
  /** The event's zone (chart labels), when the catalog knows it. */
  timezone: string;
  points: SalesPoint[];
  forecast: Forecast;
  /** Where it stands against the organization's similar finished events (`comparables.ts`). */
  comparables: Comparables;
}

export interface SalesInsights {
  /**
   * The event's history and forecast now, from the stored history only (no report call); with
   * `report`, a report just read counts as the latest point even before its write lands.
   * Undefined when the event's start is not known.
   */
  of(eventId: string, report?: EventReport): Promise<SalesInsight | undefined>;
  /**
   * The organization's finished events a forecast learns from (read again at most every 10
   * minutes: the same array until then), each with its `eventId`.
   */
  finished(now: number): Promise<FinishedEvent[]>;
  /**
   * Where an event stands against the organization's similar finished events, from a history the
   * caller holds (the sales digest's), with its venue and zone from the catalog.
   */
  comparablesOf(
    event: { eventId: string; startsAtMs: number; points: readonly SalesPoint[] },
    now: number,
  ): Promise<Comparables>;
}

const FINISHED_FOR_MS = 10 * 60_000;

/**
 * Forecasts for callers that show them (the report message, the watch card, its conditions, the
 * sales digest): the event's stored history, the organization's finished events (their histories
 * read again at most every 10 minutes), and its start and zone from the catalog in memory.
 */
export function salesInsights(options: {
  history: SalesHistory;
  eventInfo: (eventId: string) => { startsAtMs: number; timezone: string; venue?: string | undefined } | undefined;
  clock: Clock;
  /**
   * How long a report is served from the cache after its read (`TICKETING_REPORT_CACHE_TTL`): a
   * report at hand that says what the newest stored point says, no later than this after it, is
   * that same read. @default 60000
   */
  cacheTtlMs?: number;
}): SalesInsights {
  const cacheTtlMs = options.cacheTtlMs ?? 60_000;
  let finished: { at: number; events: Promise<(ComparableEvent & { eventId: string })[]> } | undefined;
  const finishedEvents = (now: number) => {
    if (!finished || now - finished.at > FINISHED_FOR_MS) {
      const events = options.history.finished(now).then((histories) =>
        histories
          .filter((h) => h.startsAtMs !== undefined)
          .map((h) => {
            // The catalog's venue and zone where it still lists the event (comparables narrow by them).
            const info = options.eventInfo(h.eventId);
            return {
              eventId: h.eventId,
              startsAtMs: h.startsAtMs as number,
              capacity: h.points.at(-1)?.capacity,
              points: h.points,
              venue: info?.venue,
              timezone: info?.timezone,
            };
          }),
      );
      finished = { at: now, events };
      events.catch(() => {
        finished = undefined;
      });
    }
    return finished.events;
  };
  const compare = async (
    event: { eventId: string; startsAtMs: number; points: readonly SalesPoint[] },
    now: number,
  ): Promise<Comparables> => {
    const info = options.eventInfo(event.eventId);
    return comparables({
      now,
      eventId: event.eventId,
      startsAtMs: event.startsAtMs,
      capacity: event.points.at(-1)?.capacity,
      points: event.points,
      venue: info?.venue,
      timezone: info?.timezone,
      finished: await finishedEvents(now),
    });
  };
  return {
    finished: (now) => finishedEvents(now),
    comparablesOf: compare,

    async of(eventId, report) {
      const now = options.clock.now();
      const stored = await options.history.read(eventId);
      const info = options.eventInfo(eventId);
      const startsAtMs = info?.startsAtMs ?? stored.startsAtMs;
      if (startsAtMs === undefined) return undefined;
      const points = [...stored.points];
      const latest = report ? salesPointOf(report, now) : undefined;
      // The report at hand is the newest point unless the history already has one as new, it
      // shows fewer sold than the last stored (a cached report older than that point), or it says
      // what the last stored says within the cache's life (that same read, served from the cache:
      // a point of its own later, when a new read may well say the same).
      const last = points.at(-1);
      const cachedCopy = (point: SalesPoint, stored: SalesPoint) =>
        sameFigures(point, stored) && point.at - stored.at <= cacheTtlMs;
      const isNew = !last || (latest !== undefined && latest.sold >= last.sold && !cachedCopy(latest, last));
      if (latest && isNew && !points.some((p) => p.at >= latest.at - 1_000)) points.push(latest);
      const capacity = points.at(-1)?.capacity;
      return {
        eventId,
        startsAtMs,
        capacity,
        timezone: info?.timezone ?? 'UTC',
        points,
        forecast: forecast({ now, startsAtMs, capacity, points, finished: await finishedEvents(now) }),
        comparables: await compare({ eventId, startsAtMs, points }, now),
      };
    },
  };
}
