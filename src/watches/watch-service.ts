import { randomUUID } from 'node:crypto';
import type { FiguresPolicy } from '../figures/may-show-figures.js';
import type { Logger } from '../logger.js';
import { ClaimedWork } from '../store/claimed-work.js';
import type { ClaimStore } from '../store/claims.js';
import type { EventReport } from '../ticketing/schemas.js';
import type { Clock } from '../time/clock.js';
import type { AlertQuieting } from './alert-quieting.js';
import type { EventCheck, Watch } from './watch.js';
import type { WatchChat, WatchForecast, WatchMessages } from './watch-chat.js';
import { WatchCheck } from './watch-check.js';
import type { WatchCondition } from './watch-condition.js';
import { figuresOfWatches, pauseFor, type WatchFigures, type WatchGate, type WatchReader } from './watch-figures.js';
import { type Pace, WatchPace } from './watch-pace.js';
import { WatchPosts } from './watch-posts.js';
import type { WatchScheduleRule } from './watch-schedule.js';
import { type WatchRefusal, type WatchRequest, type WatchResult, WatchSetup } from './watch-setup.js';
import type { WatchStore } from './watch-store.js';
import { type EventDates, type WatchReports, type WatchTurn, WatchTurns } from './watch-turns.js';

// Callers know watches through this service: the types of its parts are named from here too.
export type { WatchedEventInfo, WatchRefusal, WatchRequest, WatchResult } from './watch-setup.js';
export type { EventDates, WatchReports, WatchTurn } from './watch-turns.js';

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

/** Watches in one conversation (`channel`: a channel id, or a person's id for their own), or that one person set or added to. */
export interface WatchFilter {
  channel?: string;
  setBy?: string;
}

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
  readonly #posts: WatchPosts<M>;
  readonly #checks: WatchCheck<M>;
  readonly #pace: WatchPace;
  readonly #figures: WatchFigures;
  readonly #setup: WatchSetup<M>;
  readonly #turns: WatchTurns<M>;

  /** What the alerts' Snooze and Mute buttons and `/events watches thread-only` change. */
  readonly quieting: AlertQuieting | undefined;

  constructor(options: WatchServiceOptions<M>) {
    this.#o = options;
    this.quieting = options.quieting;
    const leaseMs = options.leaseMs ?? 120_000;
    const work = new ClaimedWork({
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
      work,
      chat: options.chat,
      messages: options.messages,
      clock: options.clock,
      logger: options.logger,
      pace: this.#pace,
      ahead,
      figures: this.#figures,
      onAlert: options.onAlert,
      quieting: options.quieting,
      current: options.reports.current?.bind(options.reports),
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
    this.#setup = new WatchSetup<M>({
      store: options.store,
      chat: options.chat,
      posts: this.#posts,
      pace: this.#pace,
      clock: options.clock,
      logger: options.logger,
      maxWatchesPerPerson: options.maxWatchesPerPerson,
    });
    this.#turns = new WatchTurns<M>({
      store: options.store,
      work,
      posts: this.#posts,
      checks: this.#checks,
      reports: options.reports,
      rule: options.rule,
      clock: options.clock,
      logger: options.logger,
      eventDates: options.eventDates,
      figures: this.#figures,
    });
  }

  /** Adds conditions to the event's watch in this conversation (making it, and its card, if new). */
  watch(request: WatchRequest): Promise<WatchResult> {
    return this.#setup.watch(request);
  }

  /**
   * Whether `watch` would refuse a new watch for this conversation and person now (read, not
   * held): callers ask before spending a report call on its conditions. `watch` decides.
   */
  wouldRefuse(
    request: Pick<WatchRequest, 'channel' | 'userId'> & { eventId: string },
  ): Promise<WatchRefusal | undefined> {
    return this.#setup.wouldRefuse(request);
  }

  /** Ends the event's watch in this conversation; its card says who ended it. */
  unwatch(channel: string, eventId: string, by: string): Promise<Watch | undefined> {
    return this.#setup.unwatch(channel, eventId, by);
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
  turn(): Promise<WatchTurn> {
    return this.#turns.turn();
  }
}
