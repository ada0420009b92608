import cron, { type ScheduledTask } from 'node-cron';
import type { Logger } from '../logger.js';
import type { Clock } from '../time/clock.js';
import { wallTimeAt } from '../time/zoned.js';
import type { DigestRunning } from './digest-runner.js';
import { nextFire } from './fire-times.js';
import { type Subscription, subscriptionKey, timeOfDay } from './subscription.js';

/** The cron expression of a daily digest: second 0 of its minute, every day. */
export function cronExpression(subscription: Pick<Subscription, 'time'>): string {
  const { hour, minute } = timeOfDay(subscription.time);
  return `0 ${minute} ${hour} * * *`;
}

/** Whether the next digest falls on a day whose clock skips its time (a spring-forward gap). */
function skippedByClockChange(subscription: Subscription, at: number): boolean {
  const { hour, minute } = timeOfDay(subscription.time);
  const wall = wallTimeAt(at, subscription.timezone);
  return wall.hour !== hour || wall.minute !== minute;
}

interface Scheduled {
  task: ScheduledTask;
  /** A one-off timer for a day whose time does not exist, where the cron task never fires. */
  gapTimer: NodeJS.Timeout | undefined;
  /** When that timer runs. */
  gapAt: number | undefined;
}

/**
 * One node-cron task a subscription (by its key: a channel's sales digest beside its event digest), each in its own zone, so 09:00 stays 09:00 local across DST.
 * On a spring-forward day a time inside the gap (02:30 in New York) does not exist and cron does
 * not fire; a one-off timer then runs that day's digest once, at the jump. Tasks only trigger the
 * runner, which decides (with its claims) whether anything is posted.
 */
export class DigestScheduler {
  readonly #runner: DigestRunning;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #track: <T>(work: Promise<T>) => Promise<T>;
  readonly #scheduled = new Map<string, Scheduled>();

  constructor(options: {
    runner: DigestRunning;
    logger: Logger;
    clock: Clock;
    /** Keeps a running digest in view of shutdown. */
    track?: <T>(work: Promise<T>) => Promise<T>;
  }) {
    this.#runner = options.runner;
    this.#logger = options.logger;
    this.#clock = options.clock;
    this.#track = options.track ?? ((work) => work);
  }

  /** Schedules (or reschedules) a subscription. */
  schedule(subscription: Subscription): ScheduledTask {
    const key = subscriptionKey(subscription);
    this.unschedule(key);
    const task = cron.schedule(
      cronExpression(subscription),
      async (context) => {
        await this.#fire(subscription, context.date.getTime());
      },
      { timezone: subscription.timezone, name: `digest:${key}`, noOverlap: true },
    );
    this.#scheduled.set(key, { task, gapTimer: undefined, gapAt: undefined });
    this.#armGapTimer(subscription);
    return task;
  }

  /** Stops a subscription's task, by its key (`subscriptionKey`). */
  unschedule(key: string): void {
    const scheduled = this.#scheduled.get(key);
    if (!scheduled) return;
    void scheduled.task.destroy();
    clearTimeout(scheduled.gapTimer);
    this.#scheduled.delete(key);
  }

  /** The next instants a subscription's task will fire, as node-cron computes them (its weekdays are the runner's to skip). */
  nextRuns(key: string, count: number): Date[] {
    return this.#scheduled.get(key)?.task.getNextRuns(count) ?? [];
  }

  /** When the one-off timer for a skipped time will run, if one is armed. */
  gapRunAt(key: string): number | undefined {
    return this.#scheduled.get(key)?.gapAt;
  }

  stop(): void {
    for (const key of [...this.#scheduled.keys()]) this.unschedule(key);
  }

  async #fire(subscription: Subscription, scheduledAt: number): Promise<void> {
    const key = subscriptionKey(subscription);
    try {
      const outcome = await this.#track(this.#runner.fire(key, { scheduledAt }));
      this.#logger.debug('Digest fire', { digest: key, outcome: outcome.kind });
    } catch (error) {
      // The store could not be read: the next start's catch-up (within the grace period) tries again.
      this.#logger.error('A scheduled digest could not run', { digest: key, error });
    } finally {
      this.#armGapTimer(subscription);
    }
  }

  /** Arms the one-off timer when the next digest's time is skipped by a clock change. */
  #armGapTimer(subscription: Subscription): void {
    const scheduled = this.#scheduled.get(subscriptionKey(subscription));
    if (!scheduled) return;
    clearTimeout(scheduled.gapTimer);
    scheduled.gapTimer = undefined;
    scheduled.gapAt = undefined;
    const now = this.#clock.now();
    const next = nextFire(subscription, now);
    if (!skippedByClockChange(subscription, next.at)) return;
    scheduled.gapAt = next.at;
    scheduled.gapTimer = setTimeout(() => {
      void this.#fire(subscription, next.at);
    }, next.at - now);
    scheduled.gapTimer.unref();
  }
}
