import { NamedError } from '../named-error.js';
/** Work that did not settle within its deadline (the work itself may still be running). */
export class DeadlineError extends NamedError {
  readonly code = 'deadline_exceeded';

  constructor(what: string, ms: number) {
    super(`${what} did not answer within ${ms} ms`);
  }
}

/**
 * The work's result, or a `DeadlineError` once `ms` pass first. The work is not cancelled, but its
 * late rejection is always handled here: giving up never leaves an unhandled rejection behind.
 */
export function withinDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new DeadlineError(what, ms)), ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/**
 * Calls `read` at most once at a time: while a call is under way (a Redis that does not answer
 * may keep it for minutes), callers share it rather than pile more onto the stalled connection.
 */
export function singleFlight<T>(read: () => T | Promise<T>): () => Promise<T> {
  let inFlight: Promise<T> | undefined;
  return () => {
    inFlight ??= Promise.resolve()
      .then(read)
      .finally(() => {
        inFlight = undefined;
      });
    return inFlight;
  };
}
