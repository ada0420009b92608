/**
 * Work in progress that shutdown must wait for (a listener answering a person, a digest being
 * posted), and the signal that says shutdown has begun: no new work starts after it.
 */
export class WorkTracker {
  readonly #running = new Set<Promise<unknown>>();
  readonly #stopping = new AbortController();

  /** Aborted once shutdown begins. */
  get stopping(): AbortSignal {
    return this.#stopping.signal;
  }

  get running(): number {
    return this.#running.size;
  }

  /** Keeps `work` in view until it settles; returns it unchanged. */
  track<T>(work: Promise<T>): Promise<T> {
    this.#running.add(work);
    const forget = () => this.#running.delete(work);
    work.then(forget, forget);
    return work;
  }

  /** Begins shutdown, then waits for running work (including work it starts) up to `timeoutMs`. */
  async drain(timeoutMs: number): Promise<{ unfinished: number }> {
    this.#stopping.abort(new Error('shutting down'));
    // A real-time bound on shutdown, not domain time: measured on the monotonic clock.
    const deadline = performance.now() + timeoutMs;
    while (this.#running.size > 0) {
      const left = deadline - performance.now();
      if (left <= 0) break;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...this.#running]),
        new Promise((resolve) => {
          timer = setTimeout(resolve, left);
        }),
      ]);
      clearTimeout(timer);
    }
    return { unfinished: this.#running.size };
  }
}
