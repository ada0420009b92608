import type { Logger } from '../logger.js';
import type { Clock } from '../time/clock.js';
import type { DigestOutcome, DigestRunning } from './digest-runner.js';
import type { DigestScheduler } from './digest-scheduler.js';
import { type Fire, nextFire } from './fire-times.js';
import type { Subscription } from './subscription.js';
import type { SubscriptionStore } from './subscription-store.js';

/** The digest feature as the Slack layer sees it. */
export class DigestService {
  readonly #store: SubscriptionStore;
  readonly #runner: DigestRunning;
  readonly #scheduler: DigestScheduler;
  readonly #clock: Clock;
  readonly #logger: Logger;

  constructor(deps: {
    store: SubscriptionStore;
    runner: DigestRunning;
    scheduler: DigestScheduler;
    clock: Clock;
    logger: Logger;
  }) {
    this.#store = deps.store;
    this.#runner = deps.runner;
    this.#scheduler = deps.scheduler;
    this.#clock = deps.clock;
    this.#logger = deps.logger;
  }

  /** Schedules every stored subscription, then sends what was missed within the grace period. */
  async start(): Promise<DigestOutcome[]> {
    const all = await this.#store.all();
    for (const subscription of all) if (subscription.status === 'active') this.#scheduler.schedule(subscription);
    this.#logger.info('DigestService scheduled', { subscriptions: all.length });
    return this.#runner.catchUp();
  }

  async subscribe(subscription: Subscription): Promise<Fire> {
    await this.#store.put(subscription);
    this.#scheduler.schedule(subscription);
    return nextFire(subscription, this.#clock.now());
  }

  async unsubscribe(channelId: string): Promise<boolean> {
    this.#scheduler.unschedule(channelId);
    return this.#store.remove(channelId);
  }

  async status(channelId: string): Promise<{ subscription: Subscription; next: Fire } | undefined> {
    const subscription = await this.#store.get(channelId);
    return subscription ? { subscription, next: nextFire(subscription, this.#clock.now()) } : undefined;
  }

  runNow(channelId: string): Promise<DigestOutcome> {
    return this.#runner.fire(channelId, { manual: true });
  }

  /** Stops scheduling and pending retries (a digest being posted finishes). */
  stop(): void {
    this.#scheduler.stop();
    this.#runner.stop();
  }
}
