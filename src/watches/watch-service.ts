import { randomUUID } from 'node:crypto';
import { isUpcoming } from '../catalog/is-upcoming.js';
import type { FiguresPolicy } from '../figures/may-show-figures.js';
import type { Logger } from '../logger.js';
import { ClaimedWork, type ClaimOutcome } from '../store/claimed-work.js';
import type { ClaimStore } from '../store/claims.js';
import type { EventReport } from '../ticketing/schemas.js';
import type { Clock } from '../time/clock.js';
import type { AlertQuieting } from './alert-quieting.js';
import { type EventCheck, newConditionState, type Watch } from './watch.js';
import type { EndReason, WatchChat, WatchForecast, WatchMessages } from './watch-chat.js';
import { WatchCheck } from './watch-check.js';
import { judge, MAX_CONDITIONS, type WatchCondition } from './watch-condition.js';
import { figuresOfWatches, pauseFor, type WatchFigures, type WatchGate, type WatchReader } from './watch-figures.js';
import { MAX_WATCHES_PER_PERSON } from './watch-limits.js';
import { type Pace, WatchPace } from './watch-pace.js';
import { WatchPosts } from './watch-posts.js';
import { type NextCheck, nextCheck, type WatchCandidate, type WatchScheduleRule } from './watch-schedule.js';
import { limitRefusal, type WatchedEvent, type WatchStore } from './watch-store.js';

/** Reports for watches: only from slots people leave. */
export interface WatchReports {
  /**
   * The report now, if a report slot is spare (nobody waiting); undefined when none is. A cached
   * report read at or before `readAfterMs` (the event's last check) is not served: it is no news.
   */
  spare(eventId: string, options?: { readAfterMs?: number | undefined }): Promise<EventReport | undefined>;
  /** Whether a failed report call means the service does not know the event (404). */
  isNotFound?(error: unknown): boolean;
}

export interface WatchServiceOptions<M> {
  store: WatchStore;
  claims: ClaimStore;
  chat: WatchChat<M>;
  messages: WatchMessages<M>;
  reports: WatchReports;
  rule: WatchScheduleRule;
  clock: Clock;
  logger: Logger;
  /** A claim not settled within this long is taken for a crash and taken over. @default 2 min */
  leaseMs?: number;
  /** Hears each check: where its report came from, and the time since the event's previous check. */
  onCheck?: (source: 'watch' | 'person', sincePreviousMs: number | undefined) => void;
  /** Hears each alert posted. */
  onAlert?: (kind: WatchCondition['kind']) => void;
  /** Settled claims older than this are pruned. @default 14 days (as the digests') */
  claimRetentionMs?: number;
  /**
   * The event's dates as the catalog in memory has them now (no API call), so a rescheduled event's
   * watch ends with the event, not on the dates it was watched with. Undefined: not known now.
   */
  eventDates?: (eventId: string) => EventDates | undefined;
  /** Most active watches one person sets up, in all conversations. @default 20 */
  maxWatchesPerPerson?: number;
  /**
   * Who would read a watch's figures, as far as Slack says (its conversation's sharing, the
   * person it speaks for): figures go only as the figures rule allows (`watchFigures`). Undefined:
   * no Slack to ask, the conversation counts as the organization's own.
   */
  reader?: WatchReader | undefined;
  /** What the operator chose for guests (`FIGURES_FOR_GUESTS`). */
  figuresPolicy?: FiguresPolicy | undefined;
  /**
   * The event's forecast from its stored sales history (no report call), with the report just
   * read: the forecast conditions and the card read it. Undefined: none known.
   */
  forecast?: (eventId: string, report: EventReport) => Promise<WatchForecast | undefined>;
  /** Snoozes, mutes and thread-only channels (`alert-quieting.ts`). */
  quieting?: AlertQuieting | undefined;
}

/**
 * An event as the catalog in memory has it now: its dates (and the plain date it ends on, for an
 * all-day event), or that a complete crawl read after `asOf` no longer lists it.
 */
export type EventDates =
  | { listed: true; startsAtMs: number; endsAtMs: number; endsOn: string | undefined; asOf: number }
  | { listed: false; asOf: number };

/** How often the schedule is mended from the watches. */
const MEND_EVERY_MS = 3_600_000;
/** Report calls in a row answering "not found" that end an event's watches. */
const NOT_FOUND_ENDS = 2;

/** Watches in one conversation (`channel`: a channel id, or a person's id for their own), or that one person set or added to. */
export interface WatchFilter {
  channel?: string;
  setBy?: string;
}

export interface WatchRequest {
  channel: string;
  personal: boolean;
  event: WatchedEventInfo;
  userId: string;
  conditions: WatchCondition[];
  /** Set in a channel shared with another organization, confirmed by the person there. */
  sharedConfirmed?: boolean | undefined;
  /**
   * The report the conditions were read from. A threshold it already meets was crossed before the
   * watch existed: that condition starts disarmed with no crossing counted (no alert; the card and
   * the confirmation say "already crossed"), and re-arms when the figure clears, as after an alert.
   */
  readFrom?: EventReport | undefined;
}

/** A new condition's state: disarmed when `report` already meets its threshold (movements never are). */
function startingState(condition: WatchCondition, userId: string, report: EventReport | undefined, now: number) {
  const state = newConditionState(condition, userId);
  if (!report || condition.kind === 'sold-since' || condition.kind === 'stall') return state;
  const judgement = judge(condition, { report, previousSold: undefined, lastSaleAt: undefined, now });
  return 'unknown' in judgement || !judgement.met ? state : { ...state, armed: false, lastValue: judgement.value };
}

/** Most conditions one watch holds, however many people add to it. */
export const MAX_CONDITIONS_PER_WATCH = MAX_CONDITIONS;
/** Most events watched in one conversation (each costs report slots and a card). */
export const MAX_WATCHES_PER_CONVERSATION = 50;

/** What a watch keeps of its event. */
export interface WatchedEventInfo {
  id: string;
  name: string;
  startsAtMs: number | undefined;
  endsAtMs: number | undefined;
  /** The plain date an all-day event ends on (`YYYY-MM-DD`): its card shows the date, not a time. */
  endsOn?: string | undefined;
}

/**
 * Why nothing was changed: the watch would hold too many conditions, the conversation too many
 * watches, or the person has set up as many as one person may.
 */
export type WatchRefusal =
  | { kind: 'too-many-conditions'; max: number }
  | { kind: 'too-many-watches'; max: number }
  | { kind: 'too-many-for-person'; max: number; paused: number };

export interface WatchResult {
  watch: Watch;
  /** Set when nothing was changed, and why. */
  refused?: WatchRefusal | undefined;
  /** Conditions added now, and those the watch already had. */
  added: string[];
  already: string[];
  intervalMs: number;
  /** The watch is set but its card could not be posted yet (Slack failed for a while): the next check posts it. */
  cardPending?: boolean;
}

/** What one scheduler turn did, and when to look again. */
export type WatchTurn =
  | { kind: 'checked'; eventId: string }
  | { kind: 'no-spare-slot'; eventId: string }
  | { kind: 'claimed-elsewhere'; eventId: string }
  /** Another replica is taking its turn (it holds the `watch:turn` lock). */
  | { kind: 'turn-elsewhere' }
  | { kind: 'failed'; eventId: string; error: unknown }
  | { kind: 'idle'; nextAt: number | undefined };

/** The later of two times, either of which may be unknown. */
const latest = (a: number | undefined, b: number | undefined) =>
  a === undefined ? b : b === undefined ? a : Math.max(a, b);

/**
 * Watches: one live card per watched event and conversation, edited at each check, with an alert
 * in its thread when a condition crosses (once per crossing; it re-arms only after the figure has
 * clearly cleared). Checks spend only report slots people leave, and a report a person fetched
 * counts as a check. Across replicas each due check, card, alert and summary is claimed in the
 * store first; a claim left by a crash is taken over after a lease, and the card's metadata or
 * thread says whether its message went out after all.
 */
export class WatchService<M> {
  readonly #o: WatchServiceOptions<M>;
  readonly #work: ClaimedWork;
  readonly #posts: WatchPosts<M>;
  readonly #checks: WatchCheck<M>;
  readonly #pace: WatchPace;
  readonly #figures: WatchFigures;
  #lastMend = Number.NEGATIVE_INFINITY;

  /** What the alerts' Snooze and Mute buttons and `/events watches thread-only` change. */
  readonly quieting: AlertQuieting | undefined;

  constructor(options: WatchServiceOptions<M>) {
    this.#o = options;
    this.quieting = options.quieting;
    const leaseMs = options.leaseMs ?? 120_000;
    this.#work = new ClaimedWork({
      claims: options.claims,
      owner: randomUUID(),
      leaseMs,
      // A failed check, card or alert is tried again by any replica after a report window at most.
      failedRetryMs: Math.min(leaseMs, options.rule.windowMs),
      clock: options.clock,
      logger: options.logger,
      ...(options.claimRetentionMs !== undefined ? { retentionMs: options.claimRetentionMs } : {}),
    });
    // Built in the order they use each other, none handed a way back into this service.
    this.#pace = new WatchPace(options.store, options.rule);
    this.#figures = figuresOfWatches(options.reader, options.figuresPolicy, options.logger);
    const ahead = new Map<string, WatchForecast>();
    this.#posts = new WatchPosts<M>({
      store: options.store,
      work: this.#work,
      chat: options.chat,
      messages: options.messages,
      clock: options.clock,
      logger: options.logger,
      pace: this.#pace,
      ahead,
      figures: this.#figures,
      onAlert: options.onAlert,
      quieting: options.quieting,
    });
    this.#checks = new WatchCheck<M>({
      store: options.store,
      posts: this.#posts,
      clock: options.clock,
      logger: options.logger,
      pace: this.#pace,
      ahead,
      figures: this.#figures,
      forecast: options.forecast,
      // A check may wait out a slow one of the same event up to a lease; then it fails, to be tried again.
      waitMs: leaseMs,
      onCheck: options.onCheck,
    });
  }

  /** Adds conditions to the event's watch in this conversation (making it, and its card, if new). */
  async watch(request: WatchRequest): Promise<WatchResult> {
    const now = this.#o.clock.now();
    const added: string[] = [];
    const already: string[] = [];
    let refused: WatchRefusal | undefined;
    const existing = await this.#o.store.get(request.channel, request.event.id);
    // A new watch (or a paused one set again) holds its place first, atomically across replicas,
    // so requests arriving together cannot pass the limits between a count and a write.
    const reserving = !existing || existing.paused !== undefined;
    if (reserving) {
      const refusal = await this.#o.store.reserve(
        { channel: request.channel, eventId: request.event.id, by: request.userId },
        this.#limits(),
      );
      if (refusal)
        return {
          watch: this.#draft(request, now),
          refused: refusal,
          added,
          already,
          intervalMs: await this.intervalMs(),
        };
    }
    const watch = (await this.#o.store.update(request.channel, request.event.id, (current) => {
      added.length = 0;
      already.length = 0;
      refused = undefined;
      // A paused watch set again starts afresh (a new card), keeping its conditions.
      const base: Watch =
        current && !current.paused ? current : { ...this.#draft(request, now), conditions: current?.conditions ?? [] };
      const conditions = [...base.conditions];
      for (const condition of request.conditions) {
        const state = startingState(condition, request.userId, request.readFrom, now);
        if (conditions.some((c) => c.key === state.key)) already.push(state.key);
        else {
          conditions.push(state);
          added.push(state.key);
        }
      }
      if (conditions.length > MAX_CONDITIONS_PER_WATCH) {
        refused = { kind: 'too-many-conditions', max: MAX_CONDITIONS_PER_WATCH };
        return undefined;
      }
      return { ...base, conditions };
    })) as Watch | undefined;
    if ((refused || !watch) && reserving) await this.#o.store.release(request.channel, request.event.id);
    const intervalMs = await this.intervalMs();
    if (refused || !watch) {
      const current = (await this.#o.store.get(request.channel, request.event.id)) ?? this.#draft(request, now);
      return { watch: current, refused, added: [], already, intervalMs };
    }
    let cardPending = false;
    try {
      await this.#posts.showCard(watch, 'active');
    } catch (error) {
      // The watch is saved: a card Slack failed to take for a while is posted at the next check.
      cardPending = true;
      this.#o.logger.warn('A watch card could not be posted yet; the next check posts it', {
        channel: watch.channel,
        eventId: watch.eventId,
        error,
      });
    }
    const stored = (await this.#o.store.get(watch.channel, watch.eventId)) ?? watch;
    return { watch: stored, added, already, intervalMs, ...(cardPending && !stored.cardTs ? { cardPending } : {}) };
  }

  /** How many watches a conversation and a person may have. */
  #limits() {
    return {
      perConversation: MAX_WATCHES_PER_CONVERSATION,
      perPerson: this.#o.maxWatchesPerPerson ?? MAX_WATCHES_PER_PERSON,
    };
  }

  /**
   * Whether `watch` would refuse a new watch for this conversation and person now (read, not
   * held): callers ask before spending a report call on its conditions. `watch` decides.
   */
  async wouldRefuse(
    request: Pick<WatchRequest, 'channel' | 'userId'> & { eventId: string },
  ): Promise<WatchRefusal | undefined> {
    const existing = await this.#o.store.get(request.channel, request.eventId);
    if (existing && !existing.paused) return undefined;
    const limits = this.#limits();
    const watchers = (await this.#o.store.schedule()).flatMap((event) =>
      event.watches.filter((w) => !(event.eventId === request.eventId && w.channel === request.channel)),
    );
    return limitRefusal(watchers, request.channel, request.userId, limits);
  }

  /** A watch as a request would make it, not stored. */
  #draft(request: WatchRequest, now: number): Watch {
    return {
      channel: request.channel,
      personal: request.personal,
      eventId: request.event.id,
      eventName: request.event.name,
      endsAtMs: request.event.endsAtMs,
      ...(request.event.endsOn ? { endsOn: request.event.endsOn } : {}),
      startsAtMs: request.event.startsAtMs,
      datesAsOf: now,
      setBy: request.userId,
      createdAt: now,
      conditions: [],
      ...(request.sharedConfirmed ? { sharedConfirmed: true as const } : {}),
    };
  }

  /** Ends the event's watch in this conversation; its card says who ended it. */
  async unwatch(channel: string, eventId: string, by: string): Promise<Watch | undefined> {
    const watch = await this.#o.store.get(channel, eventId);
    if (!watch) return undefined;
    // The card's last edit shows the last figures: made before the check may go with the watch.
    const card = watch.cardTs ? await this.#posts.card(watch, 'unwatched', by).catch(() => undefined) : undefined;
    await this.#o.store.remove(channel, eventId);
    if (watch.cardTs && card)
      await this.#o.chat.updateCard(watch.channel, watch.cardTs, card).catch((error: unknown) => {
        this.#o.logger.info('Could not mark an ended watch card', { channel, error });
      });
    return watch;
  }

  /**
   * A conversation's sharing or membership changed (`channel_shared`, `channel_unshared`, someone
   * joined): a confirmation to share figures there anyway ends (it was given for the conversation
   * as it was), and a watch whose figures may no longer go there is paused now, its card edited
   * to show none, rather than at its next check.
   */
  async reconsider(channel: string): Promise<number> {
    let paused = 0;
    for (const found of await this.find({ channel })) {
      if (found.channel !== channel) continue;
      const watch =
        (found.sharedConfirmed
          ? await this.#o.store.update(channel, found.eventId, (current) => {
              if (!current || current.createdAt !== found.createdAt || !current.sharedConfirmed) return undefined;
              const { sharedConfirmed: _ended, ...rest } = current;
              return rest;
            })
          : undefined) ?? found;
      if (watch.paused) continue;
      const gate = await this.figures(watch, null);
      const pause = 'withheld' in gate ? pauseFor(gate.withheld) : undefined;
      if (!pause) continue;
      await this.#posts.pause(watch, pause);
      paused += 1;
    }
    return paused;
  }

  /** Watches in one conversation, or set up by one person, each with its event's last check (`/events watches`). */
  async list(filter: WatchFilter): Promise<{ watch: Watch; check: EventCheck | undefined }[]> {
    const watches = await this.find(filter);
    return Promise.all(watches.map(async (watch) => ({ watch, check: await this.#o.store.lastCheck(watch.eventId) })));
  }

  /** The watches of a conversation, or that a person set or added to, without their last checks. */
  async find(filter: WatchFilter): Promise<Watch[]> {
    return (await this.#o.store.all()).filter(
      (w) =>
        (filter.channel === undefined || w.channel === filter.channel) &&
        (filter.setBy === undefined ||
          w.setBy === filter.setBy ||
          w.conditions.some((c) => c.addedBy === filter.setBy)),
    );
  }

  /**
   * The watch's figures through the figures rule, for its conversation and the person it speaks
   * for (`person`: someone who clicked instead), or why they are held back.
   */
  figures<T>(watch: Watch, figures: T, person?: string): Promise<WatchGate<T>> {
    return this.#figures(watch, figures, person);
  }

  /** Edits a watch's card to what it says now (a snooze set from one of its alerts). */
  async refreshCard(watch: Watch): Promise<void> {
    if (!watch.paused) await this.#posts.updateCard(watch, 'active');
  }

  /** How often each watched event is checked at least, with the events watched now. */
  intervalMs(): Promise<number> {
    return this.#pace.intervalMs();
  }

  /** How often each watched event is checked now, and why: how many events are watched, in all. */
  pace(): Promise<Pace> {
    return this.#pace.now();
  }

  /** When the event's next check is due, by the current schedule. */
  async nextCheckAt(eventId: string): Promise<number | undefined> {
    const checkedAt = (await this.#o.store.schedule()).find((e) => e.eventId === eventId)?.checkedAt;
    return checkedAt !== undefined ? checkedAt + (await this.intervalMs()) : undefined;
  }

  /** The last check of an event (its report and when it was read), if it is or was watched lately. */
  async lastCheck(eventId: string): Promise<EventCheck | undefined> {
    return this.#o.store.lastCheck(eventId);
  }

  /** A report a person fetched: if the event is watched, it counts as a check (one fetch, both uses). */
  async observe(eventId: string, report: EventReport, readAt?: number): Promise<void> {
    const watched = (await this.#o.store.schedule()).find((e) => e.eventId === eventId);
    if (!watched?.watches.some((w) => !w.paused)) return;
    await this.#checks.apply(eventId, report, 'person', readAt);
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
      else await this.#posts.end(watch, why);
    }
  }

  /**
   * The event with its dates as this replica's catalog has them now (a rescheduled event moves its
   * watches), unless they were read before the watches' own: a replica whose catalog is behind
   * does not move them back. An event a complete crawl made after its watches no longer lists
   * ends them ('ended').
   */
  async #redated(event: WatchedEvent): Promise<WatchedEvent | 'ended'> {
    const dates = this.#o.eventDates?.(event.eventId);
    if (!dates) return event;
    if (!dates.listed) {
      const watches = await this.#o.store.ofEvent(event.eventId);
      if (watches.length === 0 || watches.some((w) => (w.datesAsOf ?? w.createdAt) >= dates.asOf)) return event;
      this.#o.logger.info('A watched event is no longer listed by the service: its watches end', {
        eventId: event.eventId,
      });
      await this.#endEvent(event, 'unlisted');
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
    return this.#work.holding(key, () => this.#check(next, key));
  }

  async #check(next: NextCheck, key: string): Promise<WatchTurn> {
    let report: EventReport | undefined;
    try {
      report = await this.#o.reports.spare(next.eventId, { readAfterMs: next.lastCheckedAt });
    } catch (error) {
      const notFound = await this.#o.store.recordFailure(
        next.eventId,
        this.#o.clock.now(),
        this.#o.reports.isNotFound?.(error) ?? false,
      );
      await this.#work.settle(key, 'failed');
      this.#o.logger.warn('A watch check could not fetch its report', { eventId: next.eventId, error });
      // A report that answers "not found" twice: the service no longer has the event.
      if (notFound >= NOT_FOUND_ENDS) {
        const event = (await this.#o.store.schedule()).find((e) => e.eventId === next.eventId);
        if (event) await this.#endEvent(event, 'unlisted');
      }
      return { kind: 'failed', eventId: next.eventId, error };
    }
    if (!report) {
      await this.#work.release(key);
      return { kind: 'no-spare-slot', eventId: next.eventId };
    }
    try {
      await this.#checks.apply(next.eventId, report, 'watch');
      await this.#work.settle(key, 'done');
    } catch (error) {
      await this.#work.settle(key, 'failed').catch(() => undefined);
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
    await this.#work.prune();
    if (now - this.#lastMend < MEND_EVERY_MS) return;
    this.#lastMend = now;
    await this.#o.store.reconcile().catch((error: unknown) => {
      this.#o.logger.warn('Could not derive the watch schedule again', { error });
    });
  }

  /** Claims a piece of work once across replicas (see `ClaimedWork`): 'mine', 'recovered', 'done' or 'busy'. */
  async #claim(key: string): Promise<ClaimOutcome['kind']> {
    return (await this.#work.claim(key)).kind;
  }
}
