import type { Clock } from '../../src/time/clock.js';

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
