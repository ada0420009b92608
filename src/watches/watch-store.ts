import { z } from 'zod';
import type { Logger } from '../logger.js';
import type { KeyValueStore } from '../store/key-value-store.js';
import { type EventCheck, eventCheckSchema, type Watch, watchKey, watchSchema } from './watch.js';

const INDEX = 'watch:index';
/** What a scheduler turn reads: one small record for every watched event, apart from the report bodies. */
const SCHEDULE = 'watch:schedule';
const checkKey = (eventId: string) => `watch-check:${eventId}`;

/** One watched event as a scheduler turn sees it: its dates, who watches it, when it was last read. */
export interface WatchedEvent {
  eventId: string;
  startsAtMs: number | undefined;
  endsAtMs: number | undefined;
  /** The conversations watching it; a paused watch is checked no more. */
  watches: { channel: string; paused: boolean }[];
  /** When its report was last read (a watch's check or a person's report). */
  checkedAt: number | undefined;
  /** When a check last failed since its last good one. */
  failedAt: number | undefined;
  /** Report calls in a row that answered "not found". */
  notFound: number;
}

const scheduledSchema = z.object({
  startsAtMs: z.number().optional(),
  endsAtMs: z.number().optional(),
  watches: z.array(z.object({ channel: z.string(), paused: z.boolean() })),
  checkedAt: z.number().optional(),
  failedAt: z.number().optional(),
  notFound: z.number().int().nonnegative().optional(),
});
type Scheduled = z.infer<typeof scheduledSchema>;
type Schedule = Record<string, Scheduled>;

const scheduleSchema = z.record(z.string(), z.unknown());

/**
 * Watches and the last check of each watched event, in the store every replica shares: one key a
 * watch, an index of them (keyv cannot list keys), and the schedule: one small record a watched
 * event (dates, watchers, last check and failure times), all a scheduler turn reads. Each is
 * changed only through the store's read-modify-write, so a failed read never empties it. A record
 * that no longer parses is skipped. The schedule is derived from the watches and checks: it is
 * rebuilt from them when missing and by `reconcile`.
 */
export class WatchStore {
  readonly #store: KeyValueStore;
  readonly #logger: Logger;

  constructor(store: KeyValueStore, logger: Logger) {
    this.#store = store;
    this.#logger = logger;
  }

  async get(channel: string, eventId: string): Promise<Watch | undefined> {
    return this.#parse(await this.#store.get(watchKey(channel, eventId)));
  }

  /** Every watch; records that no longer parse are logged and left out. */
  async all(): Promise<Watch[]> {
    const keys = (await this.#store.get<string[]>(INDEX)) ?? [];
    const found: Watch[] = [];
    for (const key of keys) {
      const watch = this.#parse(await this.#store.get(key));
      if (watch) found.push(watch);
      else this.#logger.warn('Skipped a stored watch that does not parse', { key });
    }
    return found;
  }

  /** The watches of one event (read by the schedule's list of its watchers, not the whole index). */
  async ofEvent(eventId: string): Promise<Watch[]> {
    const scheduled = (await this.schedule()).find((e) => e.eventId === eventId);
    const found: Watch[] = [];
    for (const { channel } of scheduled?.watches ?? []) {
      const watch = await this.get(channel, eventId);
      if (watch) found.push(watch);
    }
    return found;
  }

  /** Every watched event, as a scheduler turn needs it: one read of a small record. */
  async schedule(): Promise<WatchedEvent[]> {
    let stored = await this.#store.get<unknown>(SCHEDULE);
    // Written by a version that kept none: derived once from the watches.
    if (stored === undefined && ((await this.#store.get<string[]>(INDEX)) ?? []).length > 0)
      stored = await this.reconcile();
    const parsed = scheduleSchema.safeParse(stored ?? {});
    if (!parsed.success) return [];
    const events: WatchedEvent[] = [];
    for (const [eventId, value] of Object.entries(parsed.data)) {
      const entry = scheduledSchema.safeParse(value);
      if (!entry.success) continue;
      const { startsAtMs, endsAtMs, watches, checkedAt, failedAt, notFound } = entry.data;
      events.push({ eventId, startsAtMs, endsAtMs, watches, checkedAt, failedAt, notFound: notFound ?? 0 });
    }
    return events;
  }

  /**
   * Read-modify-write of one watch under its key's lock (across replicas on Redis): `change` sees
   * the stored watch (undefined when none) and returns the new one, or undefined to leave it.
   */
  async update(
    channel: string,
    eventId: string,
    change: (current: Watch | undefined) => Watch | undefined,
  ): Promise<Watch | undefined> {
    const key = watchKey(channel, eventId);
    let changed: Watch | undefined;
    await this.#store.update<unknown>(key, (stored) => {
      changed = change(this.#parse(stored));
      return changed;
    });
    if (changed) {
      const watch = changed;
      await this.#store.update<string[]>(INDEX, (keys = []) => (keys.includes(key) ? undefined : [...keys, key]));
      const paused = watch.paused !== undefined;
      await this.#schedule(eventId, (entry) => {
        const same =
          entry !== undefined &&
          entry.startsAtMs === watch.startsAtMs &&
          entry.endsAtMs === watch.endsAtMs &&
          entry.watches.some((w) => w.channel === channel && w.paused === paused);
        if (same) return undefined; // A condition's state changed: nothing a turn reads.
        const watches = entry?.watches.filter((w) => w.channel !== channel) ?? [];
        watches.push({ channel, paused });
        return { ...entry, startsAtMs: watch.startsAtMs, endsAtMs: watch.endsAtMs, watches };
      });
    }
    return changed;
  }

  /**
   * Removes a watch: its value under its key's lock, so an update that read it before cannot write
   * it back (an update after sees none and leaves it gone), then its index entry. The event's last
   * check goes with its last watch: a watch set later starts from fresh figures.
   */
  async remove(channel: string, eventId: string): Promise<boolean> {
    const key = watchKey(channel, eventId);
    const removed = await this.#store.exclusive(key, () => this.#store.delete(key));
    await this.#store.update<string[]>(INDEX, (keys = []) =>
      keys.includes(key) ? keys.filter((k) => k !== key) : undefined,
    );
    let last = false;
    await this.#schedule(eventId, (entry) => {
      const watches = entry?.watches.filter((w) => w.channel !== channel) ?? [];
      last = watches.length === 0;
      return last ? null : { ...(entry as Scheduled), watches };
    });
    if (last) await this.#store.delete(checkKey(eventId));
    return removed;
  }

  async lastCheck(eventId: string): Promise<EventCheck | undefined> {
    const parsed = eventCheckSchema.safeParse(await this.#store.get(checkKey(eventId)));
    return parsed.success ? (parsed.data as EventCheck) : undefined;
  }

  /**
   * Records a check of a watched event, unless one read later is already recorded; returns what
   * is recorded now (undefined: the event is watched no more, nothing is kept).
   */
  async recordCheck(check: EventCheck): Promise<EventCheck | undefined> {
    let watched = false;
    await this.#schedule(check.eventId, (entry) => {
      watched = entry !== undefined;
      if (!entry || (entry.checkedAt ?? Number.NEGATIVE_INFINITY) >= check.checkedAt) return undefined;
      return { ...entry, checkedAt: check.checkedAt, failedAt: undefined, notFound: 0 };
    });
    if (!watched) return undefined;
    let recorded = check;
    await this.#store.update<unknown>(checkKey(check.eventId), (stored) => {
      const parsed = eventCheckSchema.safeParse(stored);
      if (parsed.success && parsed.data.checkedAt >= check.checkedAt) {
        recorded = parsed.data as EventCheck;
        return undefined;
      }
      return check;
    });
    return recorded;
  }

  /** A check of the event failed; returns how many report calls in a row have answered "not found". */
  async recordFailure(eventId: string, at: number, notFound: boolean): Promise<number> {
    let count = 0;
    await this.#schedule(eventId, (entry) => {
      if (!entry) return undefined;
      count = notFound ? (entry.notFound ?? 0) + 1 : 0;
      return { ...entry, failedAt: at, notFound: count };
    });
    return count;
  }

  /**
   * Derives the schedule again from the watches and the checks (an hourly mend: a replica that
   * died between writing a watch and its schedule entry leaves them apart until then).
   */
  async reconcile(): Promise<Schedule> {
    const watches = await this.all();
    const byEvent = new Map<string, Watch[]>();
    for (const watch of watches) byEvent.set(watch.eventId, [...(byEvent.get(watch.eventId) ?? []), watch]);
    const checkedAt = new Map<string, number | undefined>();
    for (const eventId of byEvent.keys()) checkedAt.set(eventId, (await this.lastCheck(eventId))?.checkedAt);
    let rebuilt: Schedule = {};
    await this.#store.update<unknown>(SCHEDULE, (stored) => {
      const before = scheduleSchema.safeParse(stored ?? {});
      const previous: Record<string, unknown> = before.success ? before.data : {};
      rebuilt = {};
      for (const [eventId, list] of byEvent) {
        const old = scheduledSchema.safeParse(previous[eventId]);
        const newest = list.reduce((a, b) => ((b.datesAsOf ?? 0) > (a.datesAsOf ?? 0) ? b : a));
        rebuilt[eventId] = {
          ...(old.success ? old.data : {}),
          startsAtMs: newest.startsAtMs,
          endsAtMs: newest.endsAtMs,
          watches: list.map((w) => ({ channel: w.channel, paused: w.paused !== undefined })),
          checkedAt: checkedAt.get(eventId),
        };
      }
      return rebuilt;
    });
    return rebuilt;
  }

  /** Changes one event's schedule entry (null removes it, undefined leaves it) under the schedule's lock. */
  async #schedule(eventId: string, change: (entry: Scheduled | undefined) => Scheduled | null | undefined) {
    await this.#store.update<unknown>(SCHEDULE, (stored) => {
      const parsed = scheduleSchema.safeParse(stored ?? {});
      const schedule: Record<string, unknown> = parsed.success ? { ...parsed.data } : {};
      const entry = scheduledSchema.safeParse(schedule[eventId]);
      const changed = change(entry.success ? entry.data : undefined);
      if (changed === undefined) return undefined;
      if (changed === null) {
        if (!(eventId in schedule)) return undefined;
        delete schedule[eventId];
      } else schedule[eventId] = changed;
      return schedule;
    });
  }

  #parse(value: unknown): Watch | undefined {
    if (value === undefined) return undefined;
    const parsed = watchSchema.safeParse(value);
    return parsed.success ? (parsed.data as Watch) : undefined;
  }
}
