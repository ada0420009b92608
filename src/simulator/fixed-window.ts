/** Admission times counted per `windowMs` slice from `origin` (slices with none are omitted). */
export function countByWindow(admissions: readonly number[], origin: number, windowMs: number): Map<number, number> {
  const counts = new Map<number, number>();
  for (const at of admissions) {
    const index = Math.floor((at - origin) / windowMs);
    counts.set(index, (counts.get(index) ?? 0) + 1);
  }
  return counts;
}

/** What a window says about one request, as the `X-RateLimit-*` headers will. */
export interface WindowState {
  limit: number;
  remaining: number;
  resetMs: number;
}

/**
 * A fixed-window counter, the kind the spec's `X-RateLimit-Reset` describes. It also keeps the
 * admission times so the simulator can report the most requests seen in any sliding window.
 */
export class FixedWindow {
  readonly limit: number;
  readonly windowMs: number;
  readonly #origin: number;
  #windowIndex = -1;
  #used = 0;
  #mostInAWindow = 0;
  readonly #admissions: number[] = [];

  constructor(limit: number, windowMs: number, origin: number) {
    this.limit = limit;
    this.windowMs = windowMs;
    this.#origin = origin;
  }

  #roll(now: number): void {
    const index = Math.floor((now - this.#origin) / this.windowMs);
    if (index !== this.#windowIndex) {
      this.#windowIndex = index;
      this.#used = 0;
    }
  }

  #resetMs(now: number): number {
    return this.#origin + (this.#windowIndex + 1) * this.windowMs - now;
  }

  /** Counts one request if the window allows it. */
  take(now: number): WindowState & { allowed: boolean } {
    this.#roll(now);
    if (this.#used >= this.limit) {
      return { allowed: false, limit: this.limit, remaining: 0, resetMs: this.#resetMs(now) };
    }
    this.#used += 1;
    this.#mostInAWindow = Math.max(this.#mostInAWindow, this.#used);
    this.#admissions.push(now);
    return { allowed: true, limit: this.limit, remaining: this.limit - this.#used, resetMs: this.#resetMs(now) };
  }

  peek(now: number): WindowState {
    this.#roll(now);
    return { limit: this.limit, remaining: this.limit - this.#used, resetMs: this.#resetMs(now) };
  }

  /** Most requests admitted within one of the server's windows. */
  get mostInAWindow(): number {
    return this.#mostInAWindow;
  }

  /** Most requests admitted within any `windowMs` span, wherever it starts. */
  mostInAnySpan(): number {
    let most = 0;
    let first = 0;
    for (let last = 0; last < this.#admissions.length; last += 1) {
      const end = this.#admissions[last] as number;
      while ((this.#admissions[first] as number) <= end - this.windowMs) first += 1;
      most = Math.max(most, last - first + 1);
    }
    return most;
  }

  /** Admissions per server window, oldest first (windows with none are omitted). */
  countsByWindow(): Map<number, number> {
    return countByWindow(this.#admissions, this.#origin, this.windowMs);
  }

  resetStats(): void {
    this.#mostInAWindow = this.#used;
    this.#admissions.length = 0;
  }
}
