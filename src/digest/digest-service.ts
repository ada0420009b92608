import type { Logger } from '../logger.js';
import type { Clock } from '../time/clock.js';
import { addDays, parsePlainDate } from '../time/zoned.js';
import type { DigestOutcome, DigestRunning } from './digest-runner.js';
import type { DigestScheduler } from './digest-scheduler.js';
import { type Fire, fireOn, nextFire } from './fire-times.js';
import { type DigestOnOptions, isoWeekday, newSubscription, type Subscription, TIME_OF_DAY } from './subscription.js';
import type { SubscriptionStore } from './subscription-store.js';

/**
 * The next digest that will be posted: a day whose digest already went out (`digest now` counts
 * as that day's) is not run again, and a weekday it does not post on (`--weekdays`, a weekly
 * sales digest's one day) is passed over, so the next is the first day after that it posts.
 */
function nextRun(subscription: Subscription, now: number): Fire {
  const done =
    subscription.lastRun && subscription.lastRun.outcome !== 'failed' ? subscription.lastRun.date : undefined;
  const skipped = (date: string) =>
    date === done || (subscription.weekdays !== undefined && !subscription.weekdays.includes(isoWeekday(date)));
  let next = nextFire(subscription, now);
  for (let tries = 0; tries < 8 && skipped(next.date); tries += 1) {
    const date = parsePlainDate(next.date);
    if (!date) break;
    next = fireOn(subscription, addDays(date, 1));
  }
  return next;
}

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
    const outcomes = await this.#runner.catchUp();
    // Said once it is over, so a replica's part in a start is known ended (a test awaits it).
    this.#logger.info('Digest catch-up done', { outcomes: outcomes.map((outcome) => outcome.kind) });
    return outcomes;
  }

  /**
   * Turns a digest on (again): `announce` goes first (the channel's announcement, or the DM that
   * tells the person where their digest will arrive), so nothing is saved where the bot may not
   * post. The zone defaults to the person's Slack zone (`personZone`).
   */
  async turnOn(request: {
    options: DigestOnOptions;
    channelId: string;
    userId: string;
    personal: boolean;
    personZone: () => Promise<string | undefined>;
    announce: (subscription: Subscription) => Promise<void>;
  }): Promise<
    | { kind: 'on'; subscription: Subscription; next: Fire; zoneSource: 'named' | 'person' | 'default' }
    /** The announcement could not be posted: nothing was saved. */
    | { kind: 'refused'; error: unknown }
  > {
    const { subscription, zoneSource } = newSubscription(request.options, {
      channelId: request.channelId,
      userId: request.userId,
      personal: request.personal,
      personZone: request.options.timezone ? undefined : await request.personZone(),
      now: this.#clock.now(),
    });
    try {
      await request.announce(subscription);
    } catch (error) {
      return { kind: 'refused', error };
    }
    return { kind: 'on', subscription, next: await this.subscribe(subscription), zoneSource };
  }

  /** Saves and schedules a subscription (under its key: a sales digest beside its conversation's event digest). */
  async subscribe(subscription: Subscription): Promise<Fire> {
    await this.#store.put(subscription);
    this.#scheduler.schedule(subscription);
    return nextRun(subscription, this.#clock.now());
  }

  /**
   * The methods below take a subscription key: the conversation (a channel, or a person's id) for
   * its event digest, `salesKey(conversation)` for its sales digest.
   */
  async unsubscribe(key: string): Promise<boolean> {
    this.#scheduler.unschedule(key);
    return this.#store.remove(key);
  }

  async status(key: string): Promise<{ subscription: Subscription; next: Fire } | undefined> {
    const subscription = await this.#store.get(key);
    return subscription ? { subscription, next: nextRun(subscription, this.#clock.now()) } : undefined;
  }

  /** Moves a digest to another time of day (`HH:MM`), keeping everything else; undefined when there is none. */
  async changeTime(key: string, time: string): Promise<{ subscription: Subscription; next: Fire } | undefined> {
    // A record that no longer parses would read as "no digest": check before it is written.
    if (!TIME_OF_DAY.test(time)) throw new RangeError(`Not a time of day (HH:MM): ${time.slice(0, 20)}`);
    const changed = await this.#store.update(key, (current) => ({ ...current, time }));
    if (!changed) return undefined;
    if (changed.status === 'active') this.#scheduler.schedule(changed);
    return { subscription: changed, next: nextRun(changed, this.#clock.now()) };
  }

  /** The digests waiting to be tried again after a temporary failure. */
  retriesPending(): string[] {
    return this.#runner.retriesPending();
  }

  runNow(key: string): Promise<DigestOutcome> {
    return this.#runner.fire(key, { manual: true });
  }

  /** Stops scheduling and pending retries (a digest being posted finishes). */
  stop(): void {
    this.#scheduler.stop();
    this.#runner.stop();
  }
}
