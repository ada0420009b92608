import { cancellationError } from './errors.js';

/** Who is waiting: a person in Slack (`interactive`) or a digest or crawl (`background`). */
export type Priority = 'interactive' | 'background';

/** Someone waiting for a permit. */
export interface Waiter<P> {
  priority: Priority;
  resolve: (permit: P) => void;
  reject: (error: unknown) => void;
}

/**
 * The waiters of one budget, a queue per priority: a retry goes to the head of its queue, and a
 * waiter whose signal aborts leaves the queue with the signal's reason. People come first: `head`
 * is the first interactive waiter, else the first background one.
 */
export class PriorityWaiters<P, W extends Waiter<P> = Waiter<P>> {
  readonly queues: Record<Priority, W[]> = { interactive: [], background: [] };

  /**
   * Waits in the queue for a permit (`fields` make the waiter); rejects at once with an aborted
   * signal's reason, and later when it aborts (then `onLeave` runs).
   */
  wait(
    fields: Omit<W, 'resolve' | 'reject'>,
    options: { retry?: boolean | undefined; signal?: AbortSignal | undefined },
    onLeave: () => void,
  ): Promise<P> {
    if (options.signal?.aborted) return Promise.reject(cancellationError(options.signal));
    return new Promise<P>((resolve, reject) => this.#add({ ...fields, resolve, reject } as W, options, onLeave));
  }

  /** Queues `waiter`; on abort it is removed, rejected, and `onLeave` runs. */
  #add(waiter: W, options: { retry?: boolean | undefined; signal?: AbortSignal | undefined }, onLeave: () => void) {
    const { signal } = options;
    const queue = this.queues[waiter.priority];
    if (options.retry) queue.unshift(waiter);
    else queue.push(waiter);
    if (!signal) return;
    const onAbort = () => {
      if (!this.remove(waiter)) return;
      waiter.reject(cancellationError(signal));
      onLeave();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    // Once granted, the waiter no longer listens.
    const { resolve } = waiter;
    waiter.resolve = (permit) => {
      signal.removeEventListener('abort', onAbort);
      resolve(permit);
    };
  }

  /** Takes `waiter` out of its queue; false when it was not there (granted or gone already). */
  remove(waiter: W): boolean {
    const queue = this.queues[waiter.priority];
    const index = queue.indexOf(waiter);
    if (index < 0) return false;
    queue.splice(index, 1);
    return true;
  }

  head(): W | undefined {
    return this.queues.interactive[0] ?? this.queues.background[0];
  }

  get size(): number {
    return this.queues.interactive.length + this.queues.background.length;
  }

  /** Empties both queues, returning who was waiting. */
  drain(): W[] {
    return [...this.queues.interactive.splice(0), ...this.queues.background.splice(0)];
  }
}
