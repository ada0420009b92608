import { z } from 'zod';
import type { Logger } from '../logger.js';
import type { KeyValueStore } from '../store/key-value-store.js';
import { type EventCheck, eventCheckSchema, type Watch, watchKey, watchSchema } from './watch.js';

const INDEX = 'watch:index';
/** What a scheduler turn reads: one small record for every watched event, apart from the report bodies. */
const SCHEDULE = 'watch:schedule';
const checkKey = (eventId: string) => `watch-check:${eventId}`;
/** Where a version before the schedule kept a failed check's time. */
const oldFailureKey = (eventId: string) => `watch-check-failed:${eventId}`;

/** One conversation watching an event: who set it up, and whether it is paused. */
export interface Watcher {
  channel: string;
  paused: boolean;
  /** Who set it up (counted against their active watches). */
  by?: string | undefined;
}

/** Why a new watch may not be set: its conversation, or its person, has as many as allowed. */
export type WatchLimitRefusal =
  | { kind: 'too-many-watches'; max: number }
  /** `paused`: how many of the person's watches are paused (they count: each is stored and read). */
  | { kind: 'too-many-for-person'; max: number; paused: number };

/**
 * The limits' one rule: a watch set in `channel` by `by` is refused when the conversation already
 * has its most watches, or the person their most, among `others` (every other watch: not the one
 * being set). A paused watch counts too: it is stored and read at every look-up, and pausing
 * (a card post refused at once) must not let a person store watches without end.
 */
export function limitRefusal(
  others: readonly { channel: string; by?: string | undefined; paused?: unknown }[],
  channel: string,
  by: string,
  limits: { perConversation: number; perPerson: number },
): WatchLimitRefusal | undefined {
  if (others.filter((w) => w.channel === channel).length >= limits.perConversation)
    return { kind: 'too-many-watches', max: limits.perConversation };
  const theirs = others.filter((w) => w.by === by);
  if (theirs.length >= limits.perPerson)
    return { kind: 'too-many-for-person', max: limits.perPerson, paused: theirs.filter((w) => w.paused).length };
  return undefined;
}

/** One watched event as a scheduler turn sees it: its dates, who watches it, when it was last read. */
export interface WatchedEvent {
  eventId: string;
  startsAtMs: number | undefined;
  endsAtMs: number | undefined;
  /** The conversations watching it, and who set each up; a paused watch is checked no more. */
  watches: Watcher[];
  /** When its report was last read (a watch's check or a person's report). */
  checkedAt: number | undefined;
  /** Since when it has been watched without a break (its oldest watch's setting); unknown in older records. */
  watchedSince: number | undefined;
  /** When a check last failed since its last good one. */
  failedAt: number | undefined;
  /** Report calls in a row that answered "not found". */
  notFound: number;
}

const scheduledSchema = z.object({
  startsAtMs: z.number().optional(),
  endsAtMs: z.number().optional(),
  watches: z.array(z.object({ channel: z.string(), paused: z.boolean(), by: z.string().optional() })),
  checkedAt: z.number().optional(),
  watchedSince: z.number().optional(),
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
  /** The schedule was found, or derived from the watches (written by a version that kept none). */
  #scheduleReady: Promise<void> | undefined;

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
    await this.#ready();
    const parsed = scheduleSchema.safeParse((await this.#store.get<unknown>(SCHEDULE)) ?? {});
    if (!parsed.success) return [];
    const events: WatchedEvent[] = [];
    for (const [eventId, value] of Object.entries(parsed.data)) {
      const entry = scheduledSchema.safeParse(value);
      if (!entry.success) continue;
      const { startsAtMs, endsAtMs, watches, checkedAt, watchedSince, failedAt, notFound } = entry.data;
      events.push({
        eventId,
        startsAtMs,
        endsAtMs,
        watches,
        checkedAt,
        watchedSince,
        failedAt,
        notFound: notFound ?? 0,
      });
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
    let before: Watch | undefined;
    let changed: Watch | undefined;
    await this.#store.update<unknown>(key, (stored) => {
      before = this.#parse(stored);
      changed = change(before);
      return changed;
    });
    const watch = changed;
    if (!watch) return undefined;
    const was = before as Watch | undefined;
    const paused = watch.paused !== undefined;
    // Only what a turn reads: a condition's state or a card's ts changes neither (and writing the
    // schedule then could bring back an entry an unwatch just removed).
    const scheduled =
      was === undefined ||
      was.createdAt !== watch.createdAt ||
      (was.paused !== undefined) !== paused ||
      was.startsAtMs !== watch.startsAtMs ||
      was.endsAtMs !== watch.endsAtMs;
    if (!scheduled) return watch;
    await this.#ready();
    await this.#store.update<string[]>(INDEX, (keys = []) => (keys.includes(key) ? undefined : [...keys, key]));
    await this.#schedule(eventId, (entry) => {
      const watches = entry?.watches.filter((w) => w.channel !== channel) ?? [];
      watches.push({ channel, paused, by: watch.setBy });
      const watchedSince = Math.min(entry?.watchedSince ?? watch.createdAt, watch.createdAt);
      return { ...entry, startsAtMs: watch.startsAtMs, endsAtMs: watch.endsAtMs, watchedSince, watches };
    });
    // An unwatch that removed it meanwhile stands: its index and schedule entries go again.
    if ((await this.get(channel, eventId))?.createdAt !== watch.createdAt) await this.#forgetEntry(channel, eventId);
    return watch;
  }

  /**
   * Holds a place for a new watch in the schedule, atomically across replicas, unless its
   * conversation or its person already has as many as allowed (counted from the schedule, paused
   * watches too). `release` gives the place back when the watch is then not written.
   */
  async reserve(
    watch: { channel: string; eventId: string; by: string },
    limits: { perConversation: number; perPerson: number },
  ): Promise<WatchLimitRefusal | undefined> {
    await this.#ready();
    let refusal: WatchLimitRefusal | undefined;
    await this.#store.update<unknown>(SCHEDULE, (stored) => {
      refusal = undefined;
      const schedule = this.#entries(stored);
      const others = Object.entries(schedule).flatMap(([eventId, entry]) =>
        eventId === watch.eventId ? entry.watches.filter((w) => w.channel !== watch.channel) : entry.watches,
      );
      refusal = limitRefusal(others, watch.channel, watch.by, limits);
      if (refusal) return undefined;
      const entry = schedule[watch.eventId];
      const watchers = entry?.watches.filter((w) => w.channel !== watch.channel) ?? [];
      schedule[watch.eventId] = {
        ...entry,
        watches: [...watchers, { channel: watch.channel, paused: false, by: watch.by }],
      };
      return schedule;
    });
    return refusal;
  }

  /** Gives back a place `reserve` held when no watch was written there after all (a paused watch stays paused). */
  async release(channel: string, eventId: string): Promise<void> {
    const watch = await this.get(channel, eventId);
    if (!watch) {
      await this.#forgetEntry(channel, eventId);
      return;
    }
    await this.#schedule(eventId, (entry) =>
      entry
        ? {
            ...entry,
            watches: entry.watches.map((w) =>
              w.channel === channel ? { ...w, paused: watch.paused !== undefined } : w,
            ),
          }
        : undefined,
    );
  }

  /**
   * Removes a watch: its value under its key's lock, so an update that read it before cannot write
   * it back (an update after sees none and leaves it gone), then its index entry. The event's last
   * check goes with its last watch: a watch set later starts from fresh figures.
   */
  async remove(channel: string, eventId: string): Promise<boolean> {
    const key = watchKey(channel, eventId);
    await this.#ready();
    const removed = await this.#store.exclusive(key, () => this.#store.delete(key));
    await this.#forgetEntry(channel, eventId);
    return removed;
  }

  /** Takes a conversation's watch of an event out of the index and the schedule; the check goes with the last. */
  async #forgetEntry(channel: string, eventId: string): Promise<void> {
    const key = watchKey(channel, eventId);
    await this.#store.update<string[]>(INDEX, (keys = []) =>
      keys.includes(key) ? keys.filter((k) => k !== key) : undefined,
    );
    let last = false;
    await this.#schedule(eventId, (entry) => {
      if (!entry) return undefined;
      const watches = entry.watches.filter((w) => w.channel !== channel);
      last = watches.length === 0;
      return last ? null : { ...entry, watches };
    });
    if (last) await this.#store.delete(checkKey(eventId));
  }

  /**
   * Runs `work` as the event's one check in progress: checks of one event (a watch's, a person's
   * report) wait for each other, in this process and across replicas on Redis. `waitMs`: how long
   * to wait for another replica's check before giving up (`LockBusy`).
   */
  checking<T>(eventId: string, work: () => Promise<T>, waitMs: number): Promise<T> {
    return this.#store.section(`watch-check:${eventId}`, work, { waitMs });
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
    await this.#ready();
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
   * Mends the schedule from the watches (hourly, and once from a store written before it existed):
   * a watch it lacks is added, an entry whose watch is gone is taken out. Each difference is read
   * again just before it is mended, and each mend changes one entry under the schedule's lock, so a
   * watch set or ended meanwhile is not undone. Check times already kept stay.
   */
  async reconcile(): Promise<{ added: number; removed: number }> {
    const watches = await this.all();
    const stored = this.#entries(await this.#store.get<unknown>(SCHEDULE));
    const scheduled = new Set(
      Object.entries(stored).flatMap(([eventId, entry]) => entry.watches.map((w) => `${w.channel} ${eventId}`)),
    );
    const live = new Set(watches.map((w) => `${w.channel} ${w.eventId}`));
    let added = 0;
    let removed = 0;
    for (const watch of watches) {
      if (scheduled.has(`${watch.channel} ${watch.eventId}`)) continue;
      const fresh = await this.get(watch.channel, watch.eventId);
      if (!fresh) continue;
      const failedAt = await this.#store.get<unknown>(oldFailureKey(fresh.eventId));
      const checkedAt = (await this.lastCheck(fresh.eventId))?.checkedAt;
      await this.#schedule(fresh.eventId, (entry) => {
        const watchers = entry?.watches.filter((w) => w.channel !== fresh.channel) ?? [];
        return {
          ...entry,
          startsAtMs: entry?.startsAtMs ?? fresh.startsAtMs,
          endsAtMs: entry?.endsAtMs ?? fresh.endsAtMs,
          checkedAt: entry?.checkedAt ?? checkedAt,
          watchedSince: Math.min(entry?.watchedSince ?? fresh.createdAt, fresh.createdAt),
          failedAt: entry?.failedAt ?? (typeof failedAt === 'number' ? failedAt : undefined),
          watches: [...watchers, { channel: fresh.channel, paused: fresh.paused !== undefined, by: fresh.setBy }],
        };
      });
      await this.#store.delete(oldFailureKey(fresh.eventId));
      added += 1;
    }
    for (const [eventId, entry] of Object.entries(stored))
      for (const watcher of entry.watches) {
        if (live.has(`${watcher.channel} ${eventId}`) || (await this.get(watcher.channel, eventId))) continue;
        await this.#forgetEntry(watcher.channel, eventId);
        removed += 1;
      }
    if (added + removed > 0) this.#logger.info('Mended the watch schedule from the watches', { added, removed });
    return { added, removed };
  }

  /** Derives the schedule from the watches once, when the store holds watches but no schedule (an upgrade). */
  #ready(): Promise<void> {
    this.#scheduleReady ??= (async () => {
      if ((await this.#store.get<unknown>(SCHEDULE)) !== undefined) return;
      if (((await this.#store.get<string[]>(INDEX)) ?? []).length === 0) return;
      await this.reconcile();
    })().catch((error: unknown) => {
      this.#scheduleReady = undefined;
      throw error;
    });
    return this.#scheduleReady;
  }

  /** The schedule's entries that parse. */
  #entries(stored: unknown): Schedule {
    const parsed = scheduleSchema.safeParse(stored ?? {});
    const entries: Schedule = {};
    if (!parsed.success) return entries;
    for (const [eventId, value] of Object.entries(parsed.data)) {
      const entry = scheduledSchema.safeParse(value);
      if (entry.success) entries[eventId] = entry.data;
    }
    return entries;
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
