import { type FinishedEvent, forecast, type Range } from './forecast.js';
import { finishedSale, opensAtOf } from './pickup.js';

/**
 * The forecast's track record (issue 35): for each finished event with a history, what the
 * forecast said at 25%, 50% and 75% of its sale, made as it could have been then (from its history
 * up to that moment and the finished events that had started by then), against what it sold by
 * its start. Pure.
 */

/** The points of a sale the forecast is measured at (shares of the selling period gone). */
export const TRACK_SHARES = [0.25, 0.5, 0.75] as const;

/** What the forecast said at one point of a sale, and how far off it was. */
export interface TrackedForecast {
  share: number;
  /** When that point of the sale was. */
  at: number;
  /** Its projected sold at the start, with its range. */
  said: Range;
  /** Finished events it learned from (0: its own pace). */
  learnedFrom: number;
  /** |projected − final| as a share of capacity (else of final). */
  error: number;
  /** Whether its range held the final. */
  held: boolean;
}

export interface TrackedEvent {
  eventId: string | undefined;
  startsAtMs: number;
  capacity: number | undefined;
  /** Sold by its start. */
  final: number;
  forecasts: TrackedForecast[];
}

export interface TrackRecord {
  /** The events measured, most recently finished first. */
  events: TrackedEvent[];
  /** Forecasts measured in all. */
  forecasts: number;
  /** Their mean error (share of capacity); undefined without any. */
  meanError: number | undefined;
  /** The share of them whose range held the outcome; undefined without any. */
  coverage: number | undefined;
}

/** How many finished events the record covers by default. */
export const TRACK_EVENTS = 10;

/**
 * The track record over the last `last` finished events (given most recently finished first) whose
 * history says how their sale ended; a point where the history allowed no forecast is left out.
 */
export function trackRecord(
  finished: readonly (FinishedEvent & { eventId?: string | undefined })[],
  options: { last?: number } = {},
): TrackRecord {
  const events: TrackedEvent[] = [];
  for (const event of finished) {
    if (events.length >= (options.last ?? TRACK_EVENTS)) break;
    const tracked = trackedOnce(event, finished);
    if (tracked) events.push(tracked);
  }
  const all = events.flatMap((e) => e.forecasts);
  const mean = (values: number[]) =>
    values.length === 0 ? undefined : values.reduce((sum, v) => sum + v, 0) / values.length;
  return {
    events,
    forecasts: all.length,
    meanError: mean(all.map((f) => f.error)),
    coverage: mean(all.map((f) => (f.held ? 1 : 0))),
  };
}

/** A history as far as a tracked event depends on it: it, its start, and what its last point says. */
function keyOf(event: FinishedEvent & { eventId?: string | undefined }): string {
  const last = event.points.at(-1);
  return `${event.eventId ?? ''}@${event.startsAtMs}:${event.capacity}:${event.points.length}:${last?.at}:${last?.sold}:${last?.capacity}`;
}

/**
 * Tracked events already made, by what they were made from; the oldest dropped past `KEPT` (a key
 * names every earlier event, a few KB at 50: a bound on memory, and 20 readings' worth of events).
 */
const tracked = new Map<string, TrackedEvent | undefined>();
const KEPT = 200;

/**
 * An event's tracked forecasts, made once: they depend only on its history and the events that
 * had started before its sale's 75% point, none of which a newly finished event changes. So each
 * new reading of the finished events costs the forecasts of the newly finished ones only.
 */
function trackedOnce(
  event: FinishedEvent & { eventId?: string | undefined },
  finished: readonly (FinishedEvent & { eventId?: string | undefined })[],
): TrackedEvent | undefined {
  const earlier = finished.filter((other) => other !== event && other.startsAtMs < event.startsAtMs);
  const key = [keyOf(event), ...earlier.map(keyOf)].join('|');
  if (tracked.has(key)) return tracked.get(key);
  const made = trackedEvent(event, earlier);
  tracked.set(key, made);
  if (tracked.size > KEPT) tracked.delete(tracked.keys().next().value as string);
  return made;
}

/** What the forecast said at 25%, 50% and 75% of a finished event's sale; undefined if its history cannot say how it ended. */
function trackedEvent(
  event: FinishedEvent & { eventId?: string | undefined },
  earlier: readonly FinishedEvent[],
): TrackedEvent | undefined {
  const sale = finishedSale(event);
  const first = event.points[0];
  if (!sale || !first) return undefined;
  // Its sale from its opening, or from its first report where the history began after it opened.
  const opens = opensAtOf(event.points) ?? first.at;
  const norm = event.capacity ?? sale.final;
  const forecasts: TrackedForecast[] = [];
  for (const share of TRACK_SHARES) {
    const at = opens + share * (event.startsAtMs - opens);
    const points = event.points.filter((p) => p.at <= at);
    // What was known then: its own history so far, and the events that had started by then.
    const others = earlier.filter((other) => other.startsAtMs <= at);
    const said = forecast(
      { now: at, startsAtMs: event.startsAtMs, capacity: points.at(-1)?.capacity, points, finished: others },
      { sellOut: false },
    );
    if (said.kind !== 'forecast') continue;
    const { low, likely, high } = said.atStart;
    forecasts.push({
      share,
      at,
      said: said.atStart,
      learnedFrom: said.learnedFrom,
      error: Math.abs(likely - sale.final) / norm,
      // Whole tickets: a range of 799.6-850 holds a final of 800.
      held: Math.round(low) <= sale.final && sale.final <= Math.round(high),
    });
  }
  return {
    eventId: event.eventId,
    startsAtMs: event.startsAtMs,
    capacity: event.capacity,
    final: sale.final,
    forecasts,
  };
}

const made = new WeakMap<readonly FinishedEvent[], TrackRecord>();

/**
 * The track record of the finished events as `SalesInsights.finished` reads them: made once for
 * each reading of them (the same array for 10 minutes), not at every look.
 */
export function trackRecordOf(finished: readonly (FinishedEvent & { eventId?: string | undefined })[]): TrackRecord {
  const known = made.get(finished);
  if (known) return known;
  const record = trackRecord(finished);
  made.set(finished, record);
  return record;
}
