import { randomUUID } from 'node:crypto';
import type { Logger } from '../logger.js';
import { digestMessage } from '../render/digest-blocks.js';
import type { ClaimStore } from '../store/claims.js';
import type { Clock } from '../time/clock.js';
import { formatPlainDate, plainDateAt } from '../time/zoned.js';
import type { EventCatalog } from './event-catalog.js';
import { type Fire, latestFire } from './schedule.js';
import type { PostMessage } from './slack-poster.js';
import type { Subscription } from './subscription.js';
import type { SubscriptionStore } from './subscription-store.js';

/** Slack errors that mean the channel will keep refusing posts: retrying cannot help. */
const CHANNEL_GONE = new Set([
  'not_in_channel',
  'channel_not_found',
  'is_archived',
  'account_inactive',
  'restricted_action',
  'cannot_reply_to_message',
]);

export type DigestOutcome =
  | { kind: 'sent'; date: string; events: number }
  | { kind: 'skipped-empty'; date: string }
  | { kind: 'already-claimed'; date: string }
  | { kind: 'channel-failing'; date: string; reason: string }
  | { kind: 'failed'; date: string; reason: string }
  | { kind: 'no-subscription' };

export interface DigestRunnerOptions {
  subscriptions: SubscriptionStore;
  claims: ClaimStore;
  catalog: EventCatalog;
  post: PostMessage;
  /** Tells the person who set a digest up that its channel refuses posts. */
  notify: (userId: string, text: string) => Promise<void>;
  /** Slack error code of a failed post, if it was one. */
  slackError: (error: unknown) => string | undefined;
  clock: Clock;
  logger: Logger;
  /** A digest missed while the bot was down is still sent this long after its time. @default 2 h */
  graceMs?: number;
}

const claimKey = (channelId: string, date: string) => `digest:${channelId}:${date}`;

/**
 * Posts digests exactly once per (subscription, local date): the date is claimed atomically in
 * the store before posting and settled after. A claim left unsettled by a crash is not retried,
 * because the post may have gone out: a missing digest is better than a duplicate.
 */
export class DigestRunner {
  readonly #o: DigestRunnerOptions;
  readonly #graceMs: number;

  constructor(options: DigestRunnerOptions) {
    this.#o = options;
    this.#graceMs = options.graceMs ?? 2 * 3_600_000;
  }

  /** Runs the digest due now for a channel (a cron fire, or `/events digest now`). */
  async fire(channelId: string, options: { manual?: boolean; scheduledAt?: number } = {}): Promise<DigestOutcome> {
    const subscription = await this.#o.subscriptions.get(channelId);
    if (!subscription) return { kind: 'no-subscription' };
    // A timer may fire a hair early; the scheduled instant says which day it is for.
    const now = Math.max(this.#o.clock.now(), options.scheduledAt ?? 0);
    // A manual run counts as today's, even before today's time.
    const fire = options.manual
      ? { date: formatPlainDate(plainDateAt(now, subscription.timezone)), at: now }
      : latestFire(subscription, now);
    return this.#run(subscription, fire);
  }

  /** On start: sends digests missed while down within the grace period; logs and skips older ones. */
  async catchUp(): Promise<DigestOutcome[]> {
    const now = this.#o.clock.now();
    const outcomes: DigestOutcome[] = [];
    for (const subscription of await this.#o.subscriptions.all()) {
      if (subscription.status !== 'active') continue;
      const fire = latestFire(subscription, now);
      const claim = await this.#o.claims.get(claimKey(subscription.channelId, fire.date));
      if (claim) {
        if (claim.state === 'claimed') {
          this.#o.logger.warn('A digest was claimed but never settled (a crash mid-post?); not sending it again', {
            channel: subscription.channelId,
            date: fire.date,
          });
        }
        continue;
      }
      if (now - fire.at > this.#graceMs) {
        this.#o.logger.info('Skipped a digest missed outside the grace period', {
          channel: subscription.channelId,
          date: fire.date,
          lateByMs: now - fire.at,
        });
        continue;
      }
      outcomes.push(await this.#run(subscription, fire));
    }
    return outcomes;
  }

  async #run(subscription: Subscription, fire: Fire): Promise<DigestOutcome> {
    const { channelId } = subscription;
    const log = this.#o.logger.child({ digest: channelId, date: fire.date });
    if (subscription.status !== 'active') {
      return { kind: 'channel-failing', date: fire.date, reason: subscription.failure ?? 'the channel refused posts' };
    }
    const key = claimKey(channelId, fire.date);
    const owner = randomUUID();
    const claimedAt = this.#o.clock.now();
    if (!(await this.#o.claims.claim(key, owner, claimedAt))) {
      log.info('Digest already claimed for this date; not posting');
      return { kind: 'already-claimed', date: fire.date };
    }
    let events: Awaited<ReturnType<EventCatalog['all']>>;
    try {
      const windowEnd = fire.at + subscription.days * 86_400_000;
      events = (await this.#o.catalog.all()).filter(
        (event) => event.startsAtMs >= fire.at && event.startsAtMs < windowEnd && event.status !== 'draft',
      );
    } catch (error) {
      // Nothing was posted: free the date so a later run may try again.
      await this.#o.claims.release(key, owner);
      log.warn('Could not read events for a digest', { error });
      return { kind: 'failed', date: fire.date, reason: error instanceof Error ? error.message : String(error) };
    }
    const finish = async (outcome: 'sent' | 'skipped-empty' | 'failed') => {
      await this.#o.claims.settle(key, owner, outcome === 'failed' ? 'failed' : 'done', this.#o.clock.now());
      await this.#o.subscriptions.update(channelId, (current) => ({
        ...current,
        lastRun: { date: fire.date, at: new Date(this.#o.clock.now()).toISOString(), outcome },
      }));
    };
    if (events.length === 0 && subscription.skipEmpty) {
      await finish('skipped-empty');
      return { kind: 'skipped-empty', date: fire.date };
    }
    try {
      await this.#o.post(
        channelId,
        digestMessage({ events, timezone: subscription.timezone, days: subscription.days, date: fire.date }),
      );
    } catch (error) {
      const code = this.#o.slackError(error);
      await finish('failed');
      if (code && CHANNEL_GONE.has(code)) {
        await this.#o.subscriptions.update(channelId, (current) => ({ ...current, status: 'failing', failure: code }));
        log.warn('The channel refuses digests; marked failing', { slackError: code });
        await this.#o
          .notify(
            subscription.createdBy,
            `The daily digest you set up in <#${channelId}> could not be posted (${code}), so it is paused. Invite me back with \`/invite @eventops\` and run \`/events digest on\` there to resume.`,
          )
          .catch((notifyError: unknown) => log.warn('Could not tell the digest owner', { error: notifyError }));
        return { kind: 'channel-failing', date: fire.date, reason: code };
      }
      log.warn('Posting a digest failed', { error });
      return {
        kind: 'failed',
        date: fire.date,
        reason: code ?? (error instanceof Error ? error.message : String(error)),
      };
    }
    await finish('sent');
    log.info('Digest posted', { events: events.length });
    return { kind: 'sent', date: fire.date, events: events.length };
  }
}
