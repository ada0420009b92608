import type { Clock, Repeating } from '../../src/time/clock.js';

/**
 * A clock that runs with the wall clock and that a test moves ahead instead of sleeping: time
 * never stands still (code that waits on real timers for it still wakes), and an idle stretch of
 * the scenario costs nothing. Give the same one to everything that compares instants (a
 * simulator and its client).
 */
export interface AheadClock extends Clock {
  /** Moves the clock `ms` ahead, at once. */
  advance(ms: number): void;
}

export function aheadClock(): AheadClock {
  let aheadMs = 0;
  return {
    now: () => Date.now() + aheadMs,
    advance: (ms) => {
      aheadMs += ms;
    },
  };
}

/**
 * A clock that stands still until the test moves it. Its `sleep`s and `every`s are timers of its
 * own, fired in time order as `advance` passes them, so a backoff or a lease loop runs when the
 * test says and never on the wall clock. `time` may also be set directly (no timer fires then).
 */
export class ManualClock implements Clock {
  time: number;
  readonly #timers = new Set<{ at: number; fire: () => void }>();

  constructor(time: number) {
    this.time = time;
  }

  now = (): number => this.time;

  sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const timer = {
        at: this.time + Math.max(0, ms),
        fire: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        this.#timers.delete(timer);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#timers.add(timer);
    });

  every = (ms: number, tick: () => void): Repeating => {
    const timer = {
      at: this.time + ms,
      fire: () => {
        timer.at += ms;
        this.#timers.add(timer);
        tick();
      },
    };
    this.#timers.add(timer);
    return { stop: () => this.#timers.delete(timer) };
  };

  /** When the next timer is due; undefined when none waits. */
  nextAt(): number | undefined {
    let next: number | undefined;
    for (const { at } of this.#timers) if (next === undefined || at < next) next = at;
    return next;
  }

  /**
   * Moves the clock `ms` ahead, firing each timer whose time it passes in time order (the clock
   * reads that time while it fires), and lets what each started run until it next waits on I/O.
   */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    for (let next = this.#due(end); next; next = this.#due(end)) {
      this.#timers.delete(next);
      this.time = Math.max(this.time, next.at);
      next.fire();
      await new Promise((resolve) => setImmediate(resolve));
    }
    this.time = end;
  }

  #due(end: number): { at: number; fire: () => void } | undefined {
    let due: { at: number; fire: () => void } | undefined;
    for (const timer of this.#timers) if (timer.at <= end && (!due || timer.at < due.at)) due = timer;
    return due;
  }
}
