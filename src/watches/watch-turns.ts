import { isUpcoming } from '../catalog/is-upcoming.js';
import type { Logger } from '../logger.js';
import type { ClaimedWork, ClaimOutcome } from '../store/claimed-work.js';
import type { EventReport } from '../ticketing/schemas.js';
import type { Clock } from '../time/clock.js';
import type { EndReason } from './watch-chat.js';
import type { WatchCheck } from './watch-check.js';
import { pauseFor, type WatchFigures } from './watch-figures.js';
import type { WatchPosts } from './watch-posts.js';
import { type NextCheck, nextCheck, type WatchCandidate, type WatchScheduleRule } from './watch-schedule.js';
import type { WatchedEvent, WatchStore } from './watch-store.js';

/** Reports for watches: only from slots people leave. */
export interface WatchReports {
  /**
   * The report now, if a report slot is spare (nobody waiting); undefined when none is. A cached
   * report read at or before `readAfterMs` (the event's last check) is not served: it is no news.
   */
  spare(eventId: string, options?: { readAfterMs?: number | undefined }): Promise<EventReport | undefined>;
  /** Whether a failed report call means the service does not know the event (404). */
  isNotFound?(error: unknown): boolean;
  /** A check's report as the event's record knows it now: a promo quantity written since it was read. */
  current?: ((eventId: string, report: EventReport) => Promise<EventReport>) | undefined;
}

/**
 * An event as the catalog in memory has it now: its dates (and the plain date it ends on, for an
 * all-day event), or that a complete crawl read after `asOf` no longer lists it.
 */
export type EventDates =
  | {
      listed: true;
      startsAtMs: number;
      endsAtMs: number;
      endsOn: string | undefined;
      asOf: number;
      /** The service says the event is cancelled: its watches end. */
      cancelled?: boolean | undefined;
    }
  | { listed: false; asOf: number };

/** What one scheduler turn did, and when to look again. */
export type WatchTurn =
  | { kind: 'checked'; eventId: string }
  | { kind: 'no-spare-slot'; eventId: string }
  | { kind: 'claimed-elsewhere'; eventId: string }
  /** Another replica is taking its turn (it holds the `watch:turn` lock). */
  | { kind: 'turn-elsewhere' }
  | { kind: 'failed'; eventId: string; error: unknown }
  /** No watch of the event may be shown its figures now (Slack cannot say who reads them): no report read. */
  | { kind: 'held'; eventId: string }
  | { kind: 'idle'; nextAt: number | undefined };

/** How often the schedule is mended from the watches. */
const MEND_EVERY_MS = 3_600_000;
/** Report calls in a row answering "not found" that end an event's watches. */
const NOT_FOUND_ENDS = 2;

/** The later of two times, either of which may be unknown. */
const latest = (a: number | undefined, b: number | undefined) =>
  a === undefined ? b : b === undefined ? a : Math.max(a, b);

export interface WatchTurnsOptions<M> {
  store: WatchStore;
  work: ClaimedWork;
  posts: WatchPosts<M>;
  checks: WatchCheck<M>;
  reports: WatchReports;
  rule: WatchScheduleRule;
  clock: Clock;
  logger: Logger;
  /** The event's dates as the catalog in memory has them now (no API call). */
  eventDates?: ((eventId: string) => EventDates | undefined) | undefined;
  /** A watch's figures through the figures rule: asked before a report is spent on its event. */
  figures?: WatchFigures | undefined;
}

/**
 * The scheduler's turns: watches of events that are over (or listed no more) end, rescheduled
 * events move their watches, and the event due next is checked with a spare report slot, once
 * across replicas.
 */
export class WatchTurns<M> {
  readonly #o: WatchTurnsOptions<M>;
  #lastMend = Number.NEGATIVE_INFINITY;

  constructor(options: WatchTurnsOptions<M>) {
    this.#o = options;
  }

  /**
   * One turn of the scheduler: ends the watches of events that are over, then checks the event
   * due next if a report slot is spare and no other replica has claimed this due time.
   */
  async turn(): Promise<WatchTurn> {
    const now = this.#o.clock.now();
    await this.#prune(now);
    const candidates: WatchCandidate[] = [];
    // One read of a small record a watched event: report bodies and watches are read only for the
    // event checked, and for events whose dates moved, that ended, or that are listed no more.
    for (const scheduled of await this.#o.store.schedule()) {
      const event = await this.#redated(scheduled);
      if (event === 'ended') continue;
      if (!isUpcoming(event, now)) {
        await this.#endEvent(event, 'over');
        continue;
      }
      if (!event.watches.some((w) => !w.paused)) continue;
      candidates.push({
        eventId: event.eventId,
        // A failed check waits its interval like a good one: an event whose report keeps
        // failing must not stay the most overdue and hold every other watch up.
        lastCheckedAt: latest(event.checkedAt, event.failedAt),
        watchedSince: event.watchedSince,
        startsAtMs: event.startsAtMs,
      });
    }
    const next = nextCheck(candidates, now, this.#o.rule);
    if (!next || next.dueAt > now) return { kind: 'idle', nextAt: next?.dueAt };
    return this.#checkDue(next);
  }

  /** Ends every watch of an event: it is over, or the service lists it no more. */
  async #endEvent(event: WatchedEvent, why: EndReason): Promise<void> {
    for (const watch of await this.#o.store.ofEvent(event.eventId)) {
      if (watch.paused) await this.#o.store.remove(watch.channel, watch.eventId);
      else await this.#o.posts.end(watch, why);
    }
  }

  /**
   * The event with its dates as this replica's catalog has them now (a rescheduled event moves its
   * watches), unless they were read before the watches' own: a replica whose catalog is behind
   * does not move them back. An event a complete crawl made after its watches no longer lists,
   * or lists as cancelled, ends them ('ended').
   */
  async #redated(event: WatchedEvent): Promise<WatchedEvent | 'ended'> {
    const dates = this.#o.eventDates?.(event.eventId);
    if (!dates) return event;
    if (!dates.listed || dates.cancelled) {
      // Only a catalog read after every watch of the event ends them: one behind (another
      // replica's, or an event reinstated since) leaves a watch just set alone.
      const watches = await this.#o.store.ofEvent(event.eventId);
      if (watches.length === 0 || watches.some((w) => (w.datesAsOf ?? w.createdAt) >= dates.asOf)) return event;
    }
    if (!dates.listed) {
      this.#o.logger.info('A watched event is no longer listed by the service: its watches end', {
        eventId: event.eventId,
      });
      await this.#endEvent(event, 'unlisted');
      return 'ended';
    }
    if (dates.cancelled) {
      this.#o.logger.info('A watched event is cancelled: its watches end', { eventId: event.eventId });
      await this.#endEvent(event, 'cancelled');
      return 'ended';
    }
    if (dates.startsAtMs === event.startsAtMs && dates.endsAtMs === event.endsAtMs) return event;
    for (const watch of await this.#o.store.ofEvent(event.eventId)) {
      await this.#o.store.update(watch.channel, watch.eventId, (current) =>
        current && current.createdAt === watch.createdAt && dates.asOf > (current.datesAsOf ?? 0)
          ? {
              ...current,
              startsAtMs: dates.startsAtMs,
              endsAtMs: dates.endsAtMs,
              endsOn: dates.endsOn,
              datesAsOf: dates.asOf,
            }
          : undefined,
      );
    }
    return (await this.#o.store.schedule()).find((e) => e.eventId === event.eventId) ?? event;
  }

  async #checkDue(next: NextCheck): Promise<WatchTurn> {
    const key = `watch-due:${next.dueKey}`;
    const claimed = await this.#claim(key);
    if (claimed === 'busy' || claimed === 'done') return { kind: 'claimed-elsewhere', eventId: next.eventId };
    return this.#o.work.holding(key, () => this.#check(next, key));
  }

  /**
   * Whether the event's check may concern anyone: every watch of it held while Slack cannot say
   * who reads it spends no report for nobody. A lasting answer is left to the check (it pauses
   * the watch, and a report that fails there still ends it).
   */
  async #anyoneToShow(eventId: string): Promise<boolean> {
    const { figures } = this.#o;
    if (!figures) return true;
    for (const watch of await this.#o.store.ofEvent(eventId)) {
      if (watch.paused) continue;
      const gate = await figures(watch, null);
      if (!('withheld' in gate) || pauseFor(gate.withheld)) return true;
    }
    return false;
  }

  async #check(next: NextCheck, key: string): Promise<WatchTurn> {
    if (!(await this.#anyoneToShow(next.eventId))) {
      // Waits its interval as a failed check does, and is asked again then.
      await this.#o.store.recordFailure(next.eventId, this.#o.clock.now(), false);
      await this.#o.work.settle(key, 'failed');
      this.#o.logger.info('A watch check is held: who reads its figures is not known', { eventId: next.eventId });
      return { kind: 'held', eventId: next.eventId };
    }
    let report: EventReport | undefined;
    try {
      report = await this.#o.reports.spare(next.eventId, { readAfterMs: next.lastCheckedAt });
    } catch (error) {
      const notFound = await this.#o.store.recordFailure(
        next.eventId,
        this.#o.clock.now(),
        this.#o.reports.isNotFound?.(error) ?? false,
      );
      await this.#o.work.settle(key, 'failed');
      this.#o.logger.warn('A watch check could not fetch its report', { eventId: next.eventId, error });
      // A report that answers "not found" twice: the service no longer has the event.
      if (notFound >= NOT_FOUND_ENDS) {
        const event = (await this.#o.store.schedule()).find((e) => e.eventId === next.eventId);
        if (event) await this.#endEvent(event, 'unlisted');
      }
      return { kind: 'failed', eventId: next.eventId, error };
    }
    if (!report) {
      await this.#o.work.release(key);
      return { kind: 'no-spare-slot', eventId: next.eventId };
    }
    try {
      await this.#o.checks.apply(next.eventId, report, 'watch');
      await this.#o.work.settle(key, 'done');
    } catch (error) {
      await this.#o.work.settle(key, 'failed').catch(() => undefined);
      this.#o.logger.warn('A watch check could not be carried out', { eventId: next.eventId, error });
      return { kind: 'failed', eventId: next.eventId, error };
    }
    return { kind: 'checked', eventId: next.eventId };
  }

  /**
   * Every check, card, alert and summary leaves a settled claim: once an hour, those older than
   * `claimRetentionMs` go (as the digests' do; a store with watches and no digests grows otherwise).
   */
  async #prune(now: number): Promise<void> {
    await this.#o.work.prune();
    if (now - this.#lastMend < MEND_EVERY_MS) return;
    this.#lastMend = now;
    await this.#o.store.reconcile().catch((error: unknown) => {
      this.#o.logger.warn('Could not derive the watch schedule again', { error });
    });
  }

  /** Claims a piece of work once across replicas (see `ClaimedWork`): 'mine', 'recovered', 'done' or 'busy'. */
  async #claim(key: string): Promise<ClaimOutcome['kind']> {
    return (await this.#o.work.claim(key)).kind;
  }
}
