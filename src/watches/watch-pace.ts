import { checkInterval, type WatchScheduleRule } from './watch-schedule.js';
import type { WatchStore } from './watch-store.js';

/** How often each watched event is checked now, and why: how many events are watched, in all. */
export interface Pace {
  intervalMs: number;
  watchedEvents: number;
  rule: WatchScheduleRule;
}

/**
 * The pace of checks: the report slots people leave, shared among the events watched now (read
 * from the schedule). The cards say it, the scheduler keeps it, `/events watches` explains it.
 */
export class WatchPace {
  constructor(
    readonly store: WatchStore,
    readonly rule: WatchScheduleRule,
  ) {}

  async now(): Promise<Pace> {
    const watchedEvents = (await this.store.schedule()).filter((e) => e.watches.some((w) => !w.paused)).length;
    return { intervalMs: checkInterval(watchedEvents, this.rule), watchedEvents, rule: this.rule };
  }

  /** How often each watched event is checked at least, with the events watched now. */
  async intervalMs(): Promise<number> {
    return (await this.now()).intervalMs;
  }
}
