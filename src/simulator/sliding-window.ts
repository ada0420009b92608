import { countByWindow, type WindowState } from './fixed-window.js';

/**
 * A rolling-window counter: at most `limit` admissions in any `windowMs` span. The spec does not
 * say whether the service's window is fixed or rolling, so the simulator can play either. Its
 * `X-RateLimit-Reset` is the time until the oldest admission leaves the window (one slot frees).
 */
export class SlidingWindow {
  readonly limit: number;
  readonly windowMs: number;
  readonly #origin: number;
  /** Admissions still inside the window, oldest first. */
  readonly #live: number[] = [];
  readonly #admissions: number[] = [];
  #mostInAWindow = 0;

  constructor(limit: number, windowMs: number, origin: number) {
    this.limit = limit;
    this.windowMs = windowMs;
    this.#origin = origin;
  }

  #expire(now: number): void {
    while (this.#live.length > 0 && (this.#live[0] as number) <= now - this.windowMs) this.#live.shift();
  }

  #resetMs(now: number): number {
    const oldest = this.#live[0];
    return oldest === undefined ? this.windowMs : oldest + this.windowMs - now;
  }

  take(now: number): WindowState & { allowed: boolean } {
    this.#expire(now);
    if (this.#live.length >= this.limit) {
      return { allowed: false, limit: this.limit, remaining: 0, resetMs: this.#resetMs(now) };
    }
    this.#live.push(now);
    this.#admissions.push(now);
    this.#mostInAWindow = Math.max(this.#mostInAWindow, this.#live.length);
    return { allowed: true, limit: this.limit, remaining: this.limit - this.#live.length, resetMs: this.#resetMs(now) };
  }

  peek(now: number): WindowState {
    this.#expire(now);
    return { limit: this.limit, remaining: this.limit - this.#live.length, resetMs: this.#resetMs(now) };
  }

  /** The most admissions inside the rolling window at once (the same as in any span). */
  get mostInAWindow(): number {
    return this.#mostInAWindow;
  }

  mostInAnySpan(): number {
    return this.#mostInAWindow;
  }

  /** Admissions per `windowMs` slice since the start, for the same reports as the fixed window. */
  countsByWindow(): Map<number, number> {
    return countByWindow(this.#admissions, this.#origin, this.windowMs);
  }

  resetStats(): void {
    this.#mostInAWindow = this.#live.length;
    this.#admissions.length = 0;
  }
}
