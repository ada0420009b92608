/** A repeating timer, stopped by its owner. */
export interface Repeating {
  stop(): void;
}

/**
 * The only source of "now" the domain code reads, and of the timers of lease loops, so tests and
 * benchmarks can pass their own and move time instead of waiting for it.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `tick` every `ms` until stopped (it never keeps the process alive). @default setInterval */
  every?(ms: number, tick: () => void): Repeating;
  /** Resolves after `ms`, or rejects with the signal's reason once it aborts. @default `sleep` */
  sleep?(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = { now: () => Date.now() };

/** `clock.sleep`, or the system's timer for a clock that has none: a backoff a test can shorten by moving its clock. */
export function sleepOn(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return clock.sleep ? clock.sleep(ms, signal) : sleep(ms, signal);
}

/** `clock.every`, or the system's interval for a clock that has none (a test's plain `{ now }`). */
export function every(clock: Clock, ms: number, tick: () => void): Repeating {
  if (clock.every) return clock.every(ms, tick);
  const timer = setInterval(tick, ms);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
