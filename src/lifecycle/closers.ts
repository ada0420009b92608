import type { Logger } from '../logger.js';
import { sleep } from '../time/clock.js';

/**
 * What the bot must close on the way out, closed in reverse: what opened first (the store) closes
 * last, after everything that writes to it. A connection whose server is gone (Redis, say) may never
 * finish closing: each gets `timeoutMs`, then is left.
 */
export class Closers {
  readonly #closers: (() => Promise<void>)[] = [];
  readonly #logger: Logger;
  readonly #timeoutMs: number;

  constructor(logger: Logger, timeoutMs = 5_000) {
    this.#logger = logger;
    this.#timeoutMs = timeoutMs;
  }

  add(close: () => Promise<void>): void {
    this.#closers.push(close);
  }

  /** Keeps what a builder made to be closed in its turn, and hands it on. */
  keep<T extends { close(): Promise<void> }>(made: T): T {
    this.add(() => made.close());
    return made;
  }

  async closeAll(): Promise<void> {
    for (const close of this.#closers.splice(0).reverse()) {
      const done = new AbortController();
      const gaveUp = sleep(this.#timeoutMs, done.signal).then(
        () => this.#logger.warn('A connection did not close in time; leaving it'),
        () => undefined,
      );
      await Promise.race([close().catch(() => undefined), gaveUp]);
      done.abort();
    }
  }
}
