import cron, { type ScheduledTask } from 'node-cron';
import type { Logger } from '../logger.js';
import type { DigestRunner } from './digest-runner.js';
import { type Subscription, timeOfDay } from './subscription.js';

/** The cron expression of a daily digest: second 0 of its minute, every day. */
export function cronExpression(subscription: Pick<Subscription, 'time'>): string {
  const { hour, minute } = timeOfDay(subscription.time);
  return `0 ${minute} ${hour} * * *`;
}

/**
 * One node-cron task a subscription, each in its own zone, so 09:00 stays 09:00 local across DST.
 * Tasks only trigger the runner, which decides (with its claims) whether anything is posted.
 */
export class DigestScheduler {
  readonly #runner: DigestRunner;
  readonly #logger: Logger;
  readonly #tasks = new Map<string, ScheduledTask>();

  constructor(runner: DigestRunner, logger: Logger) {
    this.#runner = runner;
    this.#logger = logger;
  }

  /** Schedules (or reschedules) a subscription. */
  schedule(subscription: Subscription): ScheduledTask {
    this.unschedule(subscription.channelId);
    const task = cron.schedule(
      cronExpression(subscription),
      async (context) => {
        const outcome = await this.#runner.fire(subscription.channelId, { scheduledAt: context.date.getTime() });
        this.#logger.debug('Digest fire', { channel: subscription.channelId, outcome: outcome.kind });
      },
      { timezone: subscription.timezone, name: `digest:${subscription.channelId}`, noOverlap: true },
    );
    this.#tasks.set(subscription.channelId, task);
    return task;
  }

  unschedule(channelId: string): void {
    const task = this.#tasks.get(channelId);
    if (!task) return;
    void task.destroy();
    this.#tasks.delete(channelId);
  }

  /** The next instants a channel's digest will fire, as node-cron computes them. */
  nextRuns(channelId: string, count: number): Date[] {
    return this.#tasks.get(channelId)?.getNextRuns(count) ?? [];
  }

  stop(): void {
    for (const channelId of [...this.#tasks.keys()]) this.unschedule(channelId);
  }
}
