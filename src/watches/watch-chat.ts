import type { Shown, Withheld } from '../figures/may-show-figures.js';
import type { Comparables } from '../forecast/comparables.js';
import type { Forecast } from '../forecast/forecast.js';
import type { ConditionState, EventCheck, Watch } from './watch.js';

/**
 * How a watch speaks in its conversation, passed in so the domain never imports Slack or
 * presentation: where its messages go (`WatchChat`), how they are built (`WatchMessages`), and
 * what they carry so that after a crash the channel's history says what went out.
 */

/** What a watch's messages carry, so that after a crash the channel's history says what went out. */
export interface WatchMetadata {
  event_type: 'eventops_watch';
  event_payload: {
    watch: string;
    created: number;
    kind: 'card' | 'alert' | 'summary';
    condition?: string;
    crossing?: number;
  };
}

/** Where watches speak: the Slack side, passed in so the domain never imports it. */
export interface WatchChat<M> {
  /** Posts the card; returns its message id (ts). */
  postCard(channel: string, message: M, metadata: WatchMetadata): Promise<string>;
  updateCard(channel: string, ts: string, message: M): Promise<void>;
  /** A reply in the card's thread, also shown in the channel when `broadcast`. */
  reply(
    channel: string,
    threadTs: string,
    message: M,
    options: { broadcast: boolean; metadata: WatchMetadata },
  ): Promise<void>;
  /** The ts of a card with this metadata posted at or after `sinceMs`, if any; throws when it cannot tell. */
  findCard(channel: string, metadata: WatchMetadata, sinceMs: number): Promise<string | undefined>;
  /** Whether the card's thread holds a reply with this metadata; throws when it cannot tell. */
  findReply(channel: string, threadTs: string, metadata: WatchMetadata): Promise<boolean>;
  /** A direct message to a person. */
  notify(userId: string, message: M): Promise<void>;
  /** The Slack error code when a failed post means the channel refuses posts for good. */
  channelRefusal(error: unknown): string | undefined;
}

export type CardState = 'active' | 'paused' | 'ended' | 'unlisted' | 'cancelled' | 'unwatched';

/** Why a watch ended on its own: its event is over, cancelled, or the service lists it no more. */
export type EndReason = 'over' | 'unlisted' | 'cancelled';

/** How watch messages are built: passed in, so the domain never imports presentation. */
export interface WatchMessages<M> {
  card(input: {
    watch: Watch;
    /** The last check's figures, as the figures rule let them through; undefined: none yet, or held back. */
    check: Shown<EventCheck> | undefined;
    /** Why the figures are held back, when they are (a paused card shows none either). */
    withheld?: Withheld | undefined;
    nextCheckAt: number | undefined;
    now: number;
    intervalMs: number;
    state: CardState;
    endedBy?: string;
    /** The event's forecast at the last check this replica made, if any. */
    ahead?: WatchForecast | undefined;
  }): M;
  alert(input: {
    watch: Watch;
    condition: ConditionState;
    value: number;
    check: Shown<EventCheck>;
    /** Who the alert names (not those who muted the watch). */
    mentions?: readonly string[];
  }): M;
  summary(input: {
    watch: Watch;
    check: Shown<EventCheck> | undefined;
    withheld?: Withheld | undefined;
    why: EndReason;
  }): M;
  paused(watch: Watch, reason: string): M;
}

/** What a check knows of the event's sales ahead: its forecast, and when it starts. */
export interface WatchForecast {
  forecast: Forecast;
  startsAtMs: number;
  /** Where it stands against the organization's similar finished events. */
  comparables?: Comparables | undefined;
}
