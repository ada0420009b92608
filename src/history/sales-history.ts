import { z } from 'zod';
import type { Logger } from '../logger.js';
import type { KeyValueStore } from '../store/key-value-store.js';
import type { SalesPoint } from './sales-point.js';

const INDEX = 'sales-history:index';
const historyKey = (eventId: string) => `sales-history:${eventId}`;

const pointSchema = z.object({
  at: z.number(),
  sold: z.number(),
  capacity: z.number().optional(),
  gross: z.number().optional(),
  net: z.number().optional(),
  promos: z.record(z.string(), z.number()).optional(),
});
const historySchema = z.object({
  startsAtMs: z.number().optional(),
  endsAtMs: z.number().optional(),
  points: z.array(pointSchema),
});
const indexSchema = z.record(
  z.string(),
  z.object({ startsAtMs: z.number().optional(), endsAtMs: z.number().optional(), lastAt: z.number().optional() }),
);

const DAY_MS = 86_400_000;
/** How long a history whose event's end was never learnt is kept after its last point. */
const KEEP_UNDATED_MS = 90 * DAY_MS;

/** One event's sales over time, oldest first, with its dates as they were last known. */
export interface EventHistory {
  eventId: string;
  startsAtMs: number | undefined;
  endsAtMs: number | undefined;
  points: SalesPoint[];
}

export interface SalesHistoryOptions {
  store: KeyValueStore;
  logger: Logger;
  /** Most points an event keeps; past it, older points are thinned evenly. @default 500 */
  maxPoints?: number;
  /** How long after its end an event's history is kept. @default 30 days */
  keepAfterEndMs?: number;
}

/**
 * Drops every other point of the older half until at most `max` remain: the recent past keeps
 * every point (pace reads it), the long tail keeps its shape. The first point always stays.
 */
export function thinned(points: readonly SalesPoint[], max: number): SalesPoint[] {
  let kept = [...points];
  while (kept.length > max) {
    const recent = Math.floor(max / 2);
    const older = kept.slice(0, kept.length - recent);
    const halved = older.filter((_, i) => i === 0 || i % 2 === 1);
    if (halved.length === older.length) break;
    kept = [...halved, ...kept.slice(kept.length - recent)];
  }
  return kept;
}

/**
 * Every report the bot reads adds a point to its event's history, in the store every replica
 * shares: one record an event, changed under its key's lock, so the replica that read a report
 * writes its point once (a point at a time already held is not added again). An index of events
 * and their dates lets the forecasts find finished events, and the prune forget those ended more
 * than `keepAfterEndMs` ago.
 */
export class SalesHistory {
  readonly #store: KeyValueStore;
  readonly #logger: Logger;
  readonly #maxPoints: number;
  readonly #keepAfterEndMs: number;

  constructor(options: SalesHistoryOptions) {
    this.#store = options.store;
    this.#logger = options.logger;
    this.#maxPoints = options.maxPoints ?? 500;
    this.#keepAfterEndMs = options.keepAfterEndMs ?? 30 * 86_400_000;
  }

  /** Adds a point (and the event's dates, when known); returns whether it was new. */
  async record(
    eventId: string,
    point: SalesPoint,
    dates: { startsAtMs?: number | undefined; endsAtMs?: number | undefined } = {},
  ): Promise<boolean> {
    return (await this.recordAll(eventId, [point], dates)) > 0;
  }

  /**
   * Adds points (and the event's dates, when known) in one change of the event's record, as
   * `record` adds one; returns how many were new. Seeding a past from many reports writes each
   * event once, instead of rewriting its whole record for every point.
   */
  async recordAll(
    eventId: string,
    points: readonly SalesPoint[],
    dates: { startsAtMs?: number | undefined; endsAtMs?: number | undefined } = {},
  ): Promise<number> {
    let added: SalesPoint[] = [];
    await this.#store.update<unknown>(historyKey(eventId), (stored) => {
      const parsed = historySchema.safeParse(stored ?? { points: [] });
      const history = parsed.success ? parsed.data : { points: [] };
      const held = new Set(history.points.map((p) => p.at));
      added = [];
      for (const point of points) {
        if (held.has(point.at)) continue;
        held.add(point.at);
        added.push(point);
      }
      if (added.length === 0) return undefined;
      return {
        startsAtMs: dates.startsAtMs ?? history.startsAtMs,
        endsAtMs: dates.endsAtMs ?? history.endsAtMs,
        points: thinned(
          [...history.points, ...added].sort((x, y) => x.at - y.at),
          this.#maxPoints,
        ),
      };
    });
    if (added.length === 0) return 0;
    const latest = Math.max(...added.map((point) => point.at));
    await this.#store.update<unknown>(INDEX, (stored) => {
      const parsed = indexSchema.safeParse(stored ?? {});
      const index = parsed.success ? parsed.data : {};
      const known = index[eventId];
      const startsAtMs = dates.startsAtMs ?? known?.startsAtMs;
      const endsAtMs = dates.endsAtMs ?? known?.endsAtMs;
      // The last point's day, kept coarse (one index write a day at most for it): the prune
      // forgets a history with no end date once it has not moved for a long time.
      const lastAt = Math.max(known?.lastAt ?? 0, latest);
      if (
        known &&
        known.startsAtMs === startsAtMs &&
        known.endsAtMs === endsAtMs &&
        known.lastAt !== undefined &&
        lastAt - known.lastAt < DAY_MS
      )
        return undefined;
      return { ...index, [eventId]: { startsAtMs, endsAtMs, lastAt } };
    });
    return added.length;
  }

  async read(eventId: string): Promise<EventHistory> {
    const parsed = historySchema.safeParse(await this.#store.get(historyKey(eventId)));
    const history = parsed.success ? parsed.data : { points: [] };
    return { eventId, startsAtMs: history.startsAtMs, endsAtMs: history.endsAtMs, points: history.points };
  }

  /** The histories of events that have ended by `now`, most recently ended first, at most `limit`. */
  async finished(now: number, limit = 50): Promise<EventHistory[]> {
    const parsed = indexSchema.safeParse((await this.#store.get(INDEX)) ?? {});
    if (!parsed.success) return [];
    const ended = Object.entries(parsed.data)
      .filter(([, dates]) => dates.endsAtMs !== undefined && dates.endsAtMs <= now)
      .sort((a, b) => (b[1].endsAtMs ?? 0) - (a[1].endsAtMs ?? 0))
      .slice(0, limit);
    const histories: EventHistory[] = [];
    for (const [eventId] of ended) {
      const history = await this.read(eventId);
      if (history.points.length > 0) histories.push(history);
    }
    return histories;
  }

  /**
   * Forgets the histories of events that ended more than the retention ago, and of events whose
   * end was never learnt once their last point is 90 days old; returns how many.
   */
  async prune(now: number): Promise<number> {
    const parsed = indexSchema.safeParse((await this.#store.get(INDEX)) ?? {});
    if (!parsed.success) return 0;
    const old: string[] = [];
    for (const [eventId, dates] of Object.entries(parsed.data)) {
      if (dates.endsAtMs !== undefined) {
        if (dates.endsAtMs + this.#keepAfterEndMs < now) old.push(eventId);
        continue;
      }
      // No end date ever learnt: kept until its last point is long past (read from the history
      // itself where the index predates that figure).
      const lastAt = dates.lastAt ?? (await this.read(eventId)).points.at(-1)?.at ?? 0;
      if (lastAt + KEEP_UNDATED_MS < now) old.push(eventId);
    }
    for (const eventId of old) await this.#store.delete(historyKey(eventId));
    if (old.length > 0) {
      await this.#store.update<unknown>(INDEX, (stored) => {
        const again = indexSchema.safeParse(stored ?? {});
        if (!again.success) return undefined;
        const index = { ...again.data };
        // An entry another replica changed since (a point recorded meanwhile) stays: its history
        // is kept, or pruned again later, never left out of the index.
        for (const eventId of old) {
          const before = parsed.data[eventId];
          const current = index[eventId];
          if (current?.endsAtMs === before?.endsAtMs && current?.lastAt === before?.lastAt) delete index[eventId];
        }
        return index;
      });
      this.#logger.info('Pruned old sales histories', { events: old.length });
    }
    return old.length;
  }
}
