import type { Shown } from '../figures/may-show-figures.js';
import type { Logger } from '../logger.js';
import type { ClaimedWork } from '../store/claimed-work.js';
import type { Clock } from '../time/clock.js';
import { type AlertQuieting, broadcasts, isMuted, mentioned } from './alert-quieting.js';
import { type ConditionState, type EventCheck, type Watch, watchKey } from './watch.js';
import type { CardState, EndReason, WatchChat, WatchForecast, WatchMessages, WatchMetadata } from './watch-chat.js';
import type { WatchCondition } from './watch-condition.js';
import { pauseFor, type WatchFigures } from './watch-figures.js';
import type { WatchPace } from './watch-pace.js';
import type { WatchStore } from './watch-store.js';

export interface WatchPostsOptions<M> {
  store: WatchStore;
  work: ClaimedWork;
  chat: WatchChat<M>;
  messages: WatchMessages<M>;
  clock: Clock;
  logger: Logger;
  /** How often each watched event is checked now (the card says it). */
  pace: WatchPace;
  /** Each event's forecast at its last check here (the card says it; `WatchCheck` writes it). */
  ahead: ReadonlyMap<string, WatchForecast>;
  /** A watch's figures through the figures rule. */
  figures: WatchFigures;
  /** Hears each alert posted. */
  onAlert?: ((kind: WatchCondition['kind']) => void) | undefined;
  /** Snoozes, mutes and thread-only channels; undefined: none of them. */
  quieting?: AlertQuieting | undefined;
  /** A check's report as the event's record knows it now (a promo write since it was read). */
  current?: ((eventId: string, report: EventCheck['report']) => Promise<EventCheck['report']>) | undefined;
}

/** A check just recorded and the pace of checks, handed to the cards it updates so they need not read them again. */
export interface KnownCheck {
  check: EventCheck;
  intervalMs: number;
}

/**
 * What a watch says in its conversation: its card (posted once, then edited), an alert per
 * crossing in the card's thread, the summary when it ends, and the pause when the conversation
 * refuses posts. Each post is claimed first (`ClaimedWork`); a claim taken over from a replica
 * that died reads the card's metadata or thread before posting, so nothing goes out twice.
 */
export class WatchPosts<M> {
  readonly #o: WatchPostsOptions<M>;

  constructor(options: WatchPostsOptions<M>) {
    this.#o = options;
  }

  #metadata(
    watch: Watch,
    kind: WatchMetadata['event_payload']['kind'],
    extra: { condition?: string; crossing?: number } = {},
  ) {
    return {
      event_type: 'eventops_watch',
      event_payload: { watch: watchKey(watch.channel, watch.eventId), created: watch.createdAt, kind, ...extra },
    } satisfies WatchMetadata;
  }

  /** Posts one crossing's alert in the card's thread, once across replicas and crashes. */
  async alert(
    watch: Watch,
    state: ConditionState,
    value: number,
    check: Shown<EventCheck>,
  ): Promise<'posted' | 'busy' | 'refused'> {
    const crossing = state.crossings + 1;
    const key = `watch-alert:${watch.channel}:${watch.eventId}:${watch.createdAt}:${state.key}:${crossing}`;
    const claimed = (await this.#o.work.claim(key)).kind;
    if (claimed === 'done') return 'posted';
    if (claimed === 'busy') return 'busy';
    return this.#o.work.holding(key, async () => {
      const cardTs = watch.cardTs ?? (await this.showCard(watch, 'active'));
      if (!cardTs) {
        await this.#o.work.release(key);
        return 'busy';
      }
      const metadata = this.#metadata(watch, 'alert', { condition: state.key, crossing });
      if (claimed === 'recovered' && (await this.#o.chat.findReply(watch.channel, cardTs, metadata))) {
        await this.#o.work.settle(key, 'done');
        return 'posted';
      }
      // Asked again at delivery: the conversation may have been shared (or a guest joined) since the
      // check was judged, and its kept answer forgotten; nothing crossed, the condition stays armed.
      const held = await this.#heldNow(watch, check);
      if (held) {
        await this.#o.work.release(key);
        return 'refused';
      }
      try {
        await this.#o.chat.reply(
          watch.channel,
          cardTs,
          this.#o.messages.alert({ watch, condition: state, value, check, mentions: mentioned(watch, state) }),
          {
            broadcast: broadcasts(state.condition.kind, await this.#threadOnly(watch)),
            metadata,
          },
        );
      } catch (error) {
        await this.#o.work.settle(key, 'failed').catch(() => undefined);
        if (await this.refused(watch, error)) return 'refused';
        throw error;
      }
      await this.#o.work.settle(key, 'done');
      this.#o.onAlert?.(state.condition.kind);
      await this.#o.quieting?.thresholdAlerted(watch, check.checkedAt);
      return 'posted';
    });
  }

  /**
   * Whether the watch's figures may not go out now: it was paused or ended meanwhile, or the rule
   * (asked again, of the watch as stored now) holds them; a hold that lasts pauses it.
   */
  async #heldNow(watch: Watch, check: EventCheck): Promise<boolean> {
    const now = await this.#o.store.get(watch.channel, watch.eventId);
    if (!now || now.createdAt !== watch.createdAt || now.paused) return true;
    const gate = await this.#o.figures(now, check);
    if (!('withheld' in gate)) return false;
    const pause = pauseFor(gate.withheld);
    if (pause) await this.pause(now, pause);
    return true;
  }

  /** Posts the watch's card once (claimed), or edits it; returns its ts. */
  async showCard(watch: Watch, state: CardState, known?: KnownCheck): Promise<string | undefined> {
    if (watch.cardTs) {
      await this.updateCard(watch, state, undefined, known);
      return watch.cardTs;
    }
    const key = `watch-card:${watch.channel}:${watch.eventId}:${watch.createdAt}`;
    const claimed = (await this.#o.work.claim(key)).kind;
    if (claimed === 'busy') return undefined;
    return this.#o.work.holding(key, async () => {
      const metadata = this.#metadata(watch, 'card');
      let ts: string | undefined;
      if (claimed === 'done' || claimed === 'recovered')
        ts = await this.#o.chat.findCard(watch.channel, metadata, watch.createdAt);
      if (!ts && claimed !== 'done') {
        try {
          ts = await this.#o.chat.postCard(watch.channel, await this.card(watch, state, undefined, known), metadata);
        } catch (error) {
          await this.#o.work.settle(key, 'failed').catch(() => undefined);
          if (await this.refused(watch, error)) return undefined;
          throw error;
        }
      }
      if (claimed !== 'done') await this.#o.work.settle(key, 'done');
      if (!ts) return undefined;
      const cardTs = ts;
      // A card found (posted by a replica that died) shows what it was posted with: bring it up to date.
      if (claimed === 'done' || claimed === 'recovered')
        await this.updateCard({ ...watch, cardTs }, state, undefined, known);
      await this.#o.store.update(watch.channel, watch.eventId, (current) =>
        current && current.createdAt === watch.createdAt && !current.cardTs ? { ...current, cardTs } : undefined,
      );
      return cardTs;
    });
  }

  /** The card's message as it stands now (`known`: the check just made and the pace, else read). */
  async card(watch: Watch, state: CardState, endedBy?: string, known?: KnownCheck): Promise<M> {
    const checked = known ? known.check : await this.#o.store.lastCheck(watch.eventId);
    // The card says what the event's record knows: a promo quantity written since the check, too.
    const read =
      checked && this.#o.current
        ? { ...checked, report: await this.#o.current(checked.eventId, checked.report).catch(() => checked.report) }
        : checked;
    const intervalMs = known ? known.intervalMs : await this.#o.pace.intervalMs();
    const live = state === 'active';
    // A paused card shows no figures at all (its conversation may be shared by now); any other
    // asks the rule, whatever state it is in (unwatched and ended cards too).
    const gate = read && state !== 'paused' ? await this.#o.figures(watch, read) : undefined;
    const check = gate && 'shown' in gate ? gate.shown : undefined;
    return this.#o.messages.card({
      watch,
      check,
      withheld: gate && 'withheld' in gate ? gate.withheld : undefined,
      nextCheckAt: live && check ? check.checkedAt + intervalMs : undefined,
      now: this.#o.clock.now(),
      intervalMs,
      state,
      ...(endedBy ? { endedBy } : {}),
      ahead: live ? this.#o.ahead.get(watch.eventId) : undefined,
    });
  }

  async updateCard(watch: Watch, state: CardState, endedBy?: string, known?: KnownCheck): Promise<void> {
    if (!watch.cardTs) return;
    try {
      await this.#o.chat.updateCard(watch.channel, watch.cardTs, await this.card(watch, state, endedBy, known));
    } catch (error) {
      if (await this.refused(watch, error)) return;
      throw error;
    }
  }

  /** The event is over: its summary goes in the thread, the card says so, the watch ends. */
  async end(watch: Watch, why: EndReason = 'over'): Promise<void> {
    const key = `watch-summary:${watch.channel}:${watch.eventId}:${watch.createdAt}`;
    const claimed = (await this.#o.work.claim(key)).kind;
    if (claimed === 'busy') return;
    return this.#o.work.holding(key, async () => {
      try {
        if (claimed !== 'done' && watch.cardTs) {
          const metadata = this.#metadata(watch, 'summary');
          const posted =
            claimed === 'recovered' && (await this.#o.chat.findReply(watch.channel, watch.cardTs, metadata));
          if (!posted) {
            const read = await this.#o.store.lastCheck(watch.eventId);
            // The final figures only as the rule allows now: the channel may have been shared since.
            const gate = read ? await this.#o.figures(watch, read) : undefined;
            const check = gate && 'shown' in gate ? gate.shown : undefined;
            const withheld = gate && 'withheld' in gate ? gate.withheld : undefined;
            await this.#o.chat.reply(
              watch.channel,
              watch.cardTs,
              this.#o.messages.summary({ watch, check, withheld, why }),
              {
                // A thread-only channel still hears that the event is over.
                broadcast: await this.#threadOnly(watch),
                metadata,
              },
            );
          }
          await this.updateCard(watch, why === 'over' ? 'ended' : why);
        }
        await this.#o.work.settle(key, 'done');
      } catch (error) {
        await this.#o.work.settle(key, 'failed').catch(() => undefined);
        if (!(await this.refused(watch, error))) {
          this.#o.logger.warn('Could not post the summary of a watch', { channel: watch.channel, error });
          return;
        }
      }
      await this.#o.store.remove(watch.channel, watch.eventId);
    });
  }

  async #threadOnly(watch: Watch): Promise<boolean> {
    return !watch.personal && ((await this.#o.quieting?.threadOnly(watch.channel)) ?? false);
  }

  /** A channel that refuses posts pauses its watch, and the person who set it up is told once. */
  async refused(watch: Watch, error: unknown): Promise<boolean> {
    const reason = this.#o.chat.channelRefusal(error);
    if (!reason) return false;
    await this.pause(watch, reason);
    return true;
  }

  /** Pauses a watch (no more checks or posts there) and tells the person who set it up, once. */
  async pause(watch: Watch, reason: string): Promise<void> {
    const paused = await this.#o.store.update(watch.channel, watch.eventId, (current) =>
      current && current.createdAt === watch.createdAt && !current.paused
        ? { ...current, paused: { reason, at: this.#o.clock.now() } }
        : undefined,
    );
    if (paused) {
      this.#o.logger.warn('A watch is paused', { channel: watch.channel, reason });
      // A paused card shows no figures and no Chart button: its conversation may be read by
      // someone the figures rule keeps them from now (a channel refusing posts refuses this too).
      if (paused.cardTs)
        await this.updateCard(paused, 'paused').catch((error: unknown) =>
          this.#o.logger.info('Could not mark a paused watch card', { channel: watch.channel, error }),
        );
      if (!watch.personal && isMuted(watch, watch.setBy)) return;
      await this.#o.chat
        .notify(watch.setBy, this.#o.messages.paused(watch, reason))
        .catch((notifyError: unknown) =>
          this.#o.logger.warn('Could not tell of a paused watch', { error: notifyError }),
        );
    }
  }
}
