import { randomUUID } from 'node:crypto';
import type { DayEntry } from '../catalog/calendar-days.js';
import type { EventCatalog } from '../catalog/event-catalog.js';
import type { Logger } from '../logger.js';
import { ClaimedWork } from '../store/claimed-work.js';
import type { Claim, ClaimStore } from '../store/claims.js';
import { type Clock, sleepOn } from '../time/clock.js';
import { formatPlainDate, plainDateAt } from '../time/zoned.js';
import { type DigestComposer, eventDigestComposer } from './digest-composers.js';
import { type Fire, latestFire } from './fire-times.js';
import { isoWeekday, type Subscription, subscriptionKey } from './subscription.js';
import type { SubscriptionStore } from './subscription-store.js';

/** Whether the subscription posts on that local date's weekday. */
const postsOn = (subscription: Subscription, date: string) =>
  !subscription.weekdays || subscription.weekdays.includes(isoWeekday(date));

export type DigestOutcome =
  | { kind: 'sent'; date: string; events: number }
  | { kind: 'skipped-empty'; date: string }
  /** This date's digest was posted (or skipped as empty) already. */
  | { kind: 'already-sent'; date: string }
  /** Another run is posting it right now. */
  | { kind: 'in-progress'; date: string }
  /** The channel refuses posts, or the person of a personal digest cannot get DMs: paused. */
  | { kind: 'channel-failing'; date: string; reason: string }
  /**
   * A temporary failure; `retryAt` is when it is tried again, unless the grace period is over or
   * (`stopping`) the runner is shutting down: a scheduled run is caught up by the next start within
   * its grace period; a run asked for by hand is the person's to ask for again.
   */
  | { kind: 'failed'; date: string; reason: string; retryAt: number | undefined; stopping?: true }
  /** The subscription skips this weekday (`--weekdays`). */
  | { kind: 'not-this-weekday'; date: string }
  | { kind: 'no-subscription' };

/**
 * What each digest message carries, so a recovery can tell whether it is already in the channel:
 * `subscription` is its key (the channel's sales digest's is `sales~<channel>`, apart from its event digest's).
 */
export interface DigestMetadata {
  event_type: 'eventops_digest';
  event_payload: { subscription: string; date: string };
}

/** How the runner's messages are built: passed in, so the domain never imports presentation. */
export interface DigestMessages<M> {
  digest(input: { entries: DayEntry[]; days: number; date: string }): M;
  /** Tells the person who set a digest up that its channel refuses posts (`subscription`: which digest). */
  paused(channelId: string, reason: string, subscription?: Subscription): M;
}

/** What the scheduler and the Slack side need of a runner. */
export interface DigestRunning {
  /** Runs the digest of a subscription key (`subscriptionKey`). */
  fire(key: string, options?: { manual?: boolean; scheduledAt?: number }): Promise<DigestOutcome>;
  catchUp(): Promise<DigestOutcome[]>;
  /** The digests waiting to be tried again, as `digest:<key>:<date>`. */
  retriesPending(): string[];
  stop(): void;
}

export interface DigestRunnerOptions<M> {
  subscriptions: SubscriptionStore;
  claims: ClaimStore;
  /** Where the event digest's events come from. */
  catalog: Pick<EventCatalog, 'all'>;
  messages: DigestMessages<M>;
  /** Composes a sales digest (`kind: 'sales'`); without it, a sales subscription's runs fail and are logged. */
  sales?: DigestComposer<M> | undefined;
  /** Posts to a channel, or (given a user id) to the person's DM with the bot. */
  post: (channel: string, message: M, metadata: DigestMetadata) => Promise<void>;
  /**
   * Whether the channel (`personal`: the DM with this user id) holds a message with this metadata
   * posted at or after `sinceMs`; throws when it cannot tell.
   */
  findPosted: (channel: string, metadata: DigestMetadata, sinceMs: number, personal: boolean) => Promise<boolean>;
  /** Sends a direct message to a person. */
  notify: (userId: string, message: M) => Promise<void>;
  /**
   * The Slack error code when a failed call means the channel refuses posts for good, or for a
   * personal digest (`personal`) that the person cannot get DMs (they left the workspace).
   */
  channelRefusal: (error: unknown, personal: boolean) => string | undefined;
  clock: Clock;
  logger: Logger;
  /** A digest is still sent (caught up, retried) this long after its time. @default 2 h */
  graceMs?: number;
  /** First wait before retrying a temporary failure; doubles each time. @default 30 s */
  retryBaseMs?: number | undefined;
  /** Longest wait between two retries. @default 15 min */
  retryMaxMs?: number;
  /** A claim not settled within this long is taken for a crash and recovered. @default 10 min */
  claimLeaseMs?: number;
  /** Claims older than this are pruned. @default 14 days */
  claimRetentionMs?: number;
  /** Hears every run's outcome (metrics). */
  onOutcome?: (outcome: DigestOutcome) => void;
}

/** A subscription key's claim for one local date. */
const claimKey = (key: string, date: string) => `digest:${key}:${date}`;
const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 200);

/**
 * Posts each (subscription, local date) digest exactly once. The date is claimed atomically before
 * posting and settled after. A temporary failure is retried with backoff until the grace period
 * ends. A claim whose run crashed (never settled) or failed is taken over, and the channel's
 * history is read first: the message metadata says whether the digest went out after all. A
 * personal digest is the same, in the person's DM; one whose person left is paused, like a
 * channel that refuses posts, and nobody is told (there is nobody to tell).
 */
export class DigestRunner<M> implements DigestRunning {
  readonly #options: DigestRunnerOptions<M>;
  readonly #graceMs: number;
  readonly #retryBaseMs: number;
  readonly #retryMaxMs: number;
  readonly #leaseMs: number;
  /** Prunes settled claims, one retention for every kind of claimed work. */
  readonly #work: ClaimedWork;
  readonly #retries = new Map<string, { cancel: AbortController; attempt: number }>();
  /** Once stopped, no retry is scheduled (a run that fails as shutdown goes on leaves its claim `failed`). */
  #stopped = false;
  readonly #events: DigestComposer<M>;

  constructor(options: DigestRunnerOptions<M>) {
    this.#options = options;
    this.#graceMs = options.graceMs ?? 2 * 3_600_000;
    this.#retryBaseMs = options.retryBaseMs ?? 30_000;
    this.#retryMaxMs = options.retryMaxMs ?? 15 * 60_000;
    this.#leaseMs = options.claimLeaseMs ?? 10 * 60_000;
    this.#work = new ClaimedWork({
      claims: options.claims,
      owner: randomUUID(),
      leaseMs: this.#leaseMs,
      clock: options.clock,
      logger: options.logger,
      ...(options.claimRetentionMs !== undefined ? { retentionMs: options.claimRetentionMs } : {}),
    });
    this.#events = eventDigestComposer({
      catalog: options.catalog,
      digest: (input) => options.messages.digest(input),
      clock: options.clock,
    });
  }

  /** The strategy that composes a subscription's message: one a kind of digest. */
  #composer(subscription: Subscription): DigestComposer<M> {
    if (subscription.kind !== 'sales') return this.#events;
    const { sales } = this.#options;
    if (!sales) throw new Error('no sales digest composer was given to the digest runner');
    return sales;
  }

  /** Runs the digest due now for a subscription key (a scheduled fire, or `/events digest now`). */
  async fire(key: string, options: { manual?: boolean; scheduledAt?: number } = {}): Promise<DigestOutcome> {
    const subscription = await this.#options.subscriptions.get(key);
    if (!subscription) return { kind: 'no-subscription' };
    // A timer may fire a hair early; the scheduled instant says which day it is for.
    const now = Math.max(this.#options.clock.now(), options.scheduledAt ?? 0);
    // A manual run counts as today's, even before today's time, and its grace starts now.
    const fire = options.manual
      ? { date: formatPlainDate(plainDateAt(now, subscription.timezone)), at: now }
      : latestFire(subscription, now);
    if (!options.manual && !postsOn(subscription, fire.date)) return { kind: 'not-this-weekday', date: fire.date };
    return this.#run(subscription, fire);
  }

  /** On start: sends (or recovers) digests due within the grace period; logs and skips older ones. */
  async catchUp(): Promise<DigestOutcome[]> {
    const now = this.#options.clock.now();
    await this.#work.prune();
    const outcomes: DigestOutcome[] = [];
    for (const subscription of await this.#options.subscriptions.all()) {
      if (subscription.status !== 'active') continue;
      const fire = latestFire(subscription, now);
      if (!postsOn(subscription, fire.date)) continue;
      const claim = await this.#options.claims.get(claimKey(subscriptionKey(subscription), fire.date));
      if (claim?.state === 'done') continue;
      if (now - fire.at > this.#graceMs) {
        if (claim) {
          this.#options.logger.error('A digest was never confirmed sent and its grace period is over', {
            digest: subscriptionKey(subscription),
            date: fire.date,
            state: claim.state,
          });
        } else {
          this.#options.logger.info('Skipped a digest missed outside the grace period', {
            digest: subscriptionKey(subscription),
            date: fire.date,
            lateByMs: now - fire.at,
          });
        }
        continue;
      }
      outcomes.push(await this.#run(subscription, fire));
    }
    return outcomes;
  }

  retriesPending(): string[] {
    return [...this.#retries.keys()];
  }

  /**
   * Cancels pending retries and schedules no more (shutdown, for good: a runner is not started
   * again); their claims stay `failed` for the next start to pick up.
   */
  stop(): void {
    this.#stopped = true;
    for (const { cancel } of this.#retries.values()) cancel.abort();
    this.#retries.clear();
  }

  async #run(subscription: Subscription, fire: Fire): Promise<DigestOutcome> {
    const outcome = await this.#attempt(subscription, fire);
    this.#options.onOutcome?.(outcome);
    return outcome;
  }

  async #attempt(subscription: Subscription, fire: Fire): Promise<DigestOutcome> {
    // Posted to its channel; stored, claimed and found again by its key (a channel's sales digest has its own).
    const { channelId } = subscription;
    const subscriptionId = subscriptionKey(subscription);
    const personal = subscription.personal === true;
    const log = this.#options.logger.child({ digest: subscriptionId, date: fire.date });
    if (subscription.status !== 'active') {
      return { kind: 'channel-failing', date: fire.date, reason: subscription.failure ?? 'the channel refused posts' };
    }
    const key = claimKey(subscriptionId, fire.date);
    await this.#work.prune();
    // Each attempt claims as an owner of its own: a retry here takes over its own failed attempt.
    const attempt = this.#attemptWork();
    const claimed = await attempt.claim(key);
    if (claimed.kind === 'done') return { kind: 'already-sent', date: fire.date };
    if (claimed.kind === 'busy') return { kind: 'in-progress', date: fire.date };
    const recovering: Claim | undefined = claimed.kind === 'recovered' ? claimed.previous : undefined;
    if (recovering)
      log.info('Recovering a digest whose last attempt failed or never finished', { state: recovering.state });
    const settle = async (state: 'done' | 'failed', outcome: 'sent' | 'skipped-empty' | 'failed') => {
      await attempt.settle(key, state);
      const at = new Date(this.#options.clock.now()).toISOString();
      await this.#options.subscriptions.update(subscriptionId, (current) => ({
        ...current,
        lastRun: { date: fire.date, at, outcome },
        ...(outcome === 'sent' ? { lastSentAt: at } : {}),
      }));
    };
    const temporaryFailure = async (what: string, error: unknown): Promise<DigestOutcome> => {
      await settle('failed', 'failed');
      const retry = this.#scheduleRetry(subscription, fire);
      const retryAt = typeof retry === 'number' ? retry : undefined;
      log.warn(what, {
        error,
        retryAt:
          retry === 'stopped'
            ? 'at the next start: shutting down'
            : retryAt === undefined
              ? 'none: grace period over'
              : new Date(retryAt),
      });
      return {
        kind: 'failed',
        date: fire.date,
        reason: reasonOf(error),
        retryAt,
        ...(retry === 'stopped' ? { stopping: true as const } : {}),
      };
    };

    const metadata: DigestMetadata = {
      event_type: 'eventops_digest',
      event_payload: { subscription: subscriptionId, date: fire.date },
    };
    let message: M;
    let events: number;
    try {
      ({ message, events } = await this.#composer(subscription).compose(subscription, fire));
    } catch (error) {
      return temporaryFailure('Could not read events for a digest', error);
    }
    /** Refused for good: paused, not retried; the owner of a channel's digest is told. */
    const pause = async (refusal: string): Promise<DigestOutcome> => {
      await settle('failed', 'failed');
      this.#forgetRetry(key);
      await this.#options.subscriptions.update(subscriptionId, (current) => ({
        ...current,
        status: 'failing',
        failure: refusal,
      }));
      if (personal) {
        log.warn('The person cannot get DMs (left the workspace?); their digest is paused', { slackError: refusal });
      } else {
        log.warn('The channel refuses digests; marked failing', { slackError: refusal });
        await this.#options
          .notify(subscription.createdBy, this.#options.messages.paused(channelId, refusal, subscription))
          .catch((notifyError: unknown) => log.warn('Could not tell the digest owner', { error: notifyError }));
      }
      return { kind: 'channel-failing', date: fire.date, reason: refusal };
    };
    if (events === 0 && subscription.skipEmpty) {
      await settle('done', 'skipped-empty');
      this.#forgetRetry(key);
      return { kind: 'skipped-empty', date: fire.date };
    }
    if (recovering) {
      try {
        if (await this.#options.findPosted(channelId, metadata, recovering.at - 60_000, personal)) {
          await settle('done', 'sent');
          this.#forgetRetry(key);
          log.info('The digest was in the channel already; not posting it again');
          return { kind: 'already-sent', date: fire.date };
        }
      } catch (error) {
        // A person who left (or a channel that is gone) cannot be read nor posted to.
        const refusal = this.#options.channelRefusal(error, personal);
        if (refusal) return pause(refusal);
        // Unable to tell whether it went out: waiting beats posting it twice.
        return temporaryFailure('Could not read the channel to check for an earlier digest', error);
      }
    }
    try {
      await this.#options.post(channelId, message, metadata);
    } catch (error) {
      const refusal = this.#options.channelRefusal(error, personal);
      if (!refusal) return temporaryFailure('Posting a digest failed; it will be retried', error);
      return pause(refusal);
    }
    await settle('done', 'sent');
    this.#forgetRetry(key);
    log.info('Digest posted', { events });
    return { kind: 'sent', date: fire.date, events };
  }

  /** Schedules the next attempt with exponential backoff; undefined once the grace period is over. */
  #scheduleRetry(subscription: Subscription, fire: Fire): number | 'stopped' | undefined {
    const key = claimKey(subscriptionKey(subscription), fire.date);
    const previous = this.#retries.get(key);
    previous?.cancel.abort();
    const attempt = (previous?.attempt ?? 0) + 1;
    const delay = Math.min(this.#retryMaxMs, this.#retryBaseMs * 2 ** (attempt - 1));
    const at = this.#options.clock.now() + delay;
    if (at > fire.at + this.#graceMs) {
      this.#retries.delete(key);
      this.#options.logger.error('Gave up on a digest: its grace period is over', {
        digest: subscriptionKey(subscription),
        date: fire.date,
      });
      return undefined;
    }
    if (this.#stopped) {
      this.#retries.delete(key);
      return 'stopped';
    }
    // The clock's timer, so a test moves its clock instead of waiting out the backoff.
    const cancel = new AbortController();
    this.#retries.set(key, { cancel, attempt });
    sleepOn(this.#options.clock, delay, cancel.signal).then(
      () =>
        void this.#options.subscriptions
          .get(subscriptionKey(subscription))
          .then((current) => (current ? this.#run(current, fire) : undefined))
          .catch((error: unknown) => this.#options.logger.error('A digest retry failed', { error })),
      () => undefined, // cancelled: a newer attempt, a success or shutdown took its place
    );
    return at;
  }

  #forgetRetry(key: string): void {
    const pending = this.#retries.get(key);
    pending?.cancel.abort();
    this.#retries.delete(key);
  }

  /** One attempt's claims: a failed attempt may be taken over at once, a running one after the lease. */
  #attemptWork(): ClaimedWork {
    return new ClaimedWork({
      claims: this.#options.claims,
      owner: randomUUID(),
      leaseMs: this.#leaseMs,
      failedRetryMs: 0,
      clock: this.#options.clock,
      logger: this.#options.logger,
    });
  }
}
