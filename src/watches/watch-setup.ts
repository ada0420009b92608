import type { Comparables } from '../forecast/comparables.js';
import type { Forecast } from '../forecast/forecast.js';
import type { Logger } from '../logger.js';
import type { EventReport } from '../ticketing/schemas.js';
import type { Clock } from '../time/clock.js';
import { newConditionState, type Watch } from './watch.js';
import type { WatchChat } from './watch-chat.js';
import { judge, MAX_CONDITIONS, type WatchCondition } from './watch-condition.js';
import { MAX_WATCHES_PER_PERSON } from './watch-limits.js';
import type { WatchPace } from './watch-pace.js';
import type { WatchPosts } from './watch-posts.js';
import { limitRefusal, type WatchStore } from './watch-store.js';

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
  /** Where the event stood against similar events then: a `behind similar` already met starts crossed, as a threshold does. */
  comparedFrom?: Comparables | undefined;
  /**
   * The event's forecast with that report (its pace over the history before the watch): a pace or
   * sell-out condition it already meets was met before the watch existed, as a threshold is.
   */
  forecastFrom?: Forecast | undefined;
}

/** A new condition's state: disarmed when `report` (and its forecast) already meets it (movements never are). */
function startingState(
  condition: WatchCondition,
  userId: string,
  from: {
    report: EventReport | undefined;
    forecast: Forecast | undefined;
    startsAtMs: number | undefined;
    comparables: Comparables | undefined;
  },
  now: number,
) {
  const state = newConditionState(condition, userId);
  const { report } = from;
  if (!report || condition.kind === 'sold-since' || condition.kind === 'stall' || condition.kind === 'flatline')
    return state;
  const judgement = judge(condition, {
    report,
    previousSold: undefined,
    lastSaleAt: undefined,
    now,
    forecast: from.forecast,
    startsAtMs: from.startsAtMs,
    comparables: from.comparables,
  });
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

export interface WatchSetupOptions<M> {
  store: WatchStore;
  chat: WatchChat<M>;
  posts: WatchPosts<M>;
  pace: WatchPace;
  clock: Clock;
  logger: Logger;
  /** Most active watches one person sets up, in all conversations. @default 20 */
  maxWatchesPerPerson?: number | undefined;
}

/**
 * Setting and ending watches: conditions added within the limits (held atomically across
 * replicas), the card posted when a watch begins and marked when it ends.
 */
export class WatchSetup<M> {
  readonly #o: WatchSetupOptions<M>;

  constructor(options: WatchSetupOptions<M>) {
    this.#o = options;
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
          intervalMs: await this.#o.pace.intervalMs(),
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
        const state = startingState(
          condition,
          request.userId,
          {
            report: request.readFrom,
            forecast: request.forecastFrom,
            startsAtMs: request.event.startsAtMs,
            comparables: request.comparedFrom,
          },
          now,
        );
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
    const intervalMs = await this.#o.pace.intervalMs();
    if (refused || !watch) {
      const current = (await this.#o.store.get(request.channel, request.event.id)) ?? this.#draft(request, now);
      return { watch: current, refused, added: [], already, intervalMs };
    }
    let cardPending = false;
    try {
      await this.#o.posts.showCard(watch, 'active');
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
    const card = watch.cardTs ? await this.#o.posts.card(watch, 'unwatched', by).catch(() => undefined) : undefined;
    await this.#o.store.remove(channel, eventId);
    if (watch.cardTs && card)
      await this.#o.chat.updateCard(watch.channel, watch.cardTs, card).catch((error: unknown) => {
        this.#o.logger.info('Could not mark an ended watch card', { channel, error });
      });
    return watch;
  }
}
