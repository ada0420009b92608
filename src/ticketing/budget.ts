import { type Logger, silentLogger } from '../logger.js';
import type { Clock } from '../time/clock.js';
import { systemClock } from '../time/clock.js';
import { absurdResetWarning, readBudgetObservation } from './budget-observation.js';
import { type Priority, PriorityWaiters, type Waiter } from './priority-waiters.js';
import { assertRateLimit } from './rate-limit.js';
import type { RateLimitObservation } from './rate-limit-headers.js';

export type { Priority } from './priority-waiters.js';

/** How a request that held a permit ended, as far as this budget is concerned. */
export type PermitOutcome =
  /** A response arrived; `observation` is its `X-RateLimit-*` headers when they describe this budget. */
  | { kind: 'answered'; observation: RateLimitObservation | undefined }
  /** The server answered 429 for this budget's limit: everyone waits `waitMs`. */
  | { kind: 'rate-limited'; waitMs: number }
  /**
   * Nothing this budget can read: a network error, a timeout, or a response whose headers describe
   * another limit (a report's). The server may have counted the request, so it stays counted.
   */
  | { kind: 'unobserved' };

export interface BudgetPermit {
  /** Reports how the request ended; call exactly once (later calls are ignored). */
  settle(outcome: PermitOutcome): void;
}

export interface AcquireOptions {
  signal?: AbortSignal | undefined;
  /** A retry of a request already admitted once goes to the head of its priority's queue. */
  retry?: boolean;
}

export interface BudgetSnapshot {
  /** Requests allowed per window (the server's figure, capped by configuration). */
  limit: number;
  /** Requests this process may still send in the current window, by its best estimate. */
  remaining: number;
  /** When the current window resets (clock ms), once a response has said. */
  resetAt: number | undefined;
  /** When a 429's wait ends (clock ms), while one is in force. */
  pausedUntil: number | undefined;
  inFlight: number;
  queued: Record<Priority, number>;
  /** Requests the budget keeps back from background work. */
  reserve: number;
  /** The most recent headers seen for this budget. */
  lastObservation: RateLimitObservation | undefined;
  rateLimitedResponses: number;
}

/**
 * The organization's request budget, shared by every request of the process. A narrow, async
 * interface so that a shared store (Redis) can stand behind it when several processes share keys.
 */
export interface RequestBudget {
  acquire(priority: Priority, options?: AcquireOptions): Promise<BudgetPermit>;
  snapshot(): Promise<BudgetSnapshot>;
  /** How long a request of this priority would wait for a pause or a spent window to end (0: none). */
  estimatedWaitMs(priority: Priority): Promise<number>;
}

export interface WindowBudgetOptions {
  /** Requests per window this process may send (the spec's 180). */
  limit: number;
  /** Window length in ms (the spec's minute); shrink it in tests. */
  windowMs: number;
  /** Share of each window kept back for interactive requests. @default 0.15 */
  reserveRatio?: number;
  clock?: Clock;
  logger?: Logger;
}

/** How long a request of `priority` would wait, by a budget's snapshot: a pause, or a spent window. */
export function estimatedWaitFrom(snapshot: BudgetSnapshot, priority: Priority, now: number): number {
  if (snapshot.pausedUntil !== undefined && snapshot.pausedUntil > now) return snapshot.pausedUntil - now;
  const floor = priority === 'background' ? snapshot.reserve : 0;
  if (snapshot.remaining > floor || snapshot.resetAt === undefined) return 0;
  return Math.max(0, snapshot.resetAt - now);
}

/** The share kept back for people: 15% unless configured, refused outside [0, 1). */
export function checkedReserveRatio(ratio: number | undefined): number {
  const reserveRatio = ratio ?? 0.15;
  if (!(reserveRatio >= 0 && reserveRatio < 1)) {
    throw new RangeError(`reserveRatio must be in [0, 1), got ${reserveRatio}`);
  }
  return reserveRatio;
}

/**
 * A fixed-window budget that takes the server's `X-RateLimit-*` headers as the truth, because
 * other keys of the organization spend the same allowance (spec 8). Between responses it counts
 * what it has sent and not yet seen reflected in a header. Whenever it does not know where the
 * window stands (at start, after a reset, after a 429) it sends one request and waits for its
 * headers before sending more, so it never bursts into a window another key has spent.
 */
export class WindowBudget implements RequestBudget {
  readonly #configuredLimit: number;
  readonly #windowMs: number;
  readonly #reserveRatio: number;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #waiters = new PriorityWaiters<BudgetPermit>();

  #limit: number;
  #serverRemaining: number;
  /** Sent requests that the last header may not have counted yet. */
  #uncounted = 0;
  #inFlight = 0;
  #resetAt: number | undefined;
  /** Whether a header has told us where the current window stands. */
  #known = false;
  /**
   * When the window last turned by our own clock, not by a header: `#resetAt` is then a guess,
   * and the next header (about a window that ends after this instant) replaces it whatever it says.
   */
  #rolledAt: number | undefined;
  readonly #warnAbsurdReset: (raw: RateLimitObservation) => void;
  /** Grant order: the answer to the most recently granted request best describes the window now. */
  #grants = 0;
  #adoptedGrant = -1;
  #pausedUntil = 0;
  #timer: NodeJS.Timeout | undefined;
  #timerAt = Number.POSITIVE_INFINITY;
  #last: RateLimitObservation | undefined;
  #rateLimited = 0;

  constructor(options: WindowBudgetOptions) {
    assertRateLimit(options);
    const reserveRatio = checkedReserveRatio(options.reserveRatio);
    this.#configuredLimit = options.limit;
    this.#limit = options.limit;
    this.#serverRemaining = options.limit;
    this.#windowMs = options.windowMs;
    this.#reserveRatio = reserveRatio;
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? silentLogger;
    this.#warnAbsurdReset = absurdResetWarning(this.#logger, this.#windowMs);
  }

  acquire(priority: Priority, options: AcquireOptions = {}): Promise<BudgetPermit> {
    const permit = this.#waiters.wait({ priority }, options, () => this.#pump());
    this.#pump();
    return permit;
  }

  async snapshot(): Promise<BudgetSnapshot> {
    return this.snapshotNow();
  }

  /** The snapshot, synchronously: this budget lives in the process. */
  snapshotNow(): BudgetSnapshot {
    this.#roll(this.#clock.now());
    return {
      limit: this.#limit,
      remaining: Math.max(0, this.#serverRemaining - this.#uncounted),
      resetAt: this.#resetAt,
      pausedUntil: this.#pausedUntil > this.#clock.now() ? this.#pausedUntil : undefined,
      inFlight: this.#inFlight,
      queued: {
        interactive: this.#waiters.queues.interactive.length,
        background: this.#waiters.queues.background.length,
      },
      reserve: this.#reserve(),
      lastObservation: this.#last,
      rateLimitedResponses: this.#rateLimited,
    };
  }

  async estimatedWaitMs(priority: Priority): Promise<number> {
    return estimatedWaitFrom(this.snapshotNow(), priority, this.#clock.now());
  }

  #reserve(): number {
    return Math.ceil(this.#limit * this.#reserveRatio);
  }

  /**
   * Once the window has turned, some of the limit is back, though how much is unknown: another
   * key may have spent it, or the server's window may be rolling (the spec does not say), where
   * only the oldest requests have left it. One probe goes out and its headers say.
   */
  #roll(now: number): void {
    if (this.#resetAt === undefined || now < this.#resetAt) return;
    this.#serverRemaining = this.#limit;
    this.#uncounted = this.#inFlight;
    this.#resetAt = now + this.#windowMs;
    this.#rolledAt = now;
    this.#known = false;
  }

  #canGrant(priority: Priority, now: number): boolean {
    if (now < this.#pausedUntil) return false;
    if (!this.#known && this.#inFlight > 0) return false;
    const floor = priority === 'background' ? this.#reserve() : 0;
    return this.#serverRemaining - this.#uncounted > floor;
  }

  #pump(): void {
    const now = this.#clock.now();
    this.#roll(now);
    for (const priority of ['interactive', 'background'] as const) {
      const queue = this.#waiters.queues[priority];
      while (queue.length > 0 && this.#canGrant(priority, now)) {
        const waiter = queue.shift() as Waiter<BudgetPermit>;
        this.#inFlight += 1;
        this.#uncounted += 1;
        this.#grants += 1;
        waiter.resolve(this.#permit(this.#grants));
      }
      // A person waiting keeps every background request behind them.
      if (queue.length > 0) break;
    }
    this.#schedule(now);
  }

  /** Wakes the queue when the pause ends or the window turns, if anyone is waiting for that. */
  #schedule(now: number): void {
    const waiting = this.#waiters.size > 0;
    let wakeAt = Number.POSITIVE_INFINITY;
    if (waiting) {
      if (this.#pausedUntil > now) wakeAt = this.#pausedUntil;
      else if (this.#known || this.#inFlight === 0) wakeAt = this.#resetAt ?? now + this.#windowMs;
      // Otherwise a probe is in flight and its answer pumps the queue.
    }
    if (wakeAt === this.#timerAt) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = wakeAt;
    if (wakeAt !== Number.POSITIVE_INFINITY) {
      this.#timer = setTimeout(
        () => {
          this.#timerAt = Number.POSITIVE_INFINITY;
          this.#pump();
        },
        Math.max(0, wakeAt - now),
      );
    }
  }

  #permit(grant: number): BudgetPermit {
    let settled = false;
    return {
      settle: (outcome) => {
        if (settled) return;
        settled = true;
        this.#inFlight -= 1;
        const now = this.#clock.now();
        if (outcome.kind === 'answered') {
          if (outcome.observation) this.#observe(outcome.observation, grant);
          // A server that sends no headers leaves us counting on our own.
          else this.#known = true;
        } else if (outcome.kind === 'rate-limited') {
          this.#rateLimited += 1;
          this.#pausedUntil = Math.max(this.#pausedUntil, now + outcome.waitMs);
          this.#resetAt = this.#pausedUntil;
          this.#serverRemaining = 0;
          this.#uncounted = this.#inFlight;
          this.#known = false;
        }
        this.#pump();
      },
    };
  }

  #observe(raw: RateLimitObservation, grant: number): void {
    const reading = readBudgetObservation(raw, { configuredLimit: this.#configuredLimit, windowMs: this.#windowMs });
    if (reading.capped) this.#warnAbsurdReset(raw);
    const { observation, remaining } = reading;
    if (!this.#last || observation.observedAt >= this.#last.observedAt) this.#last = observation;
    this.#limit = reading.limit;
    const tolerance = this.#windowMs / 2;
    const adopt = () => {
      this.#resetAt = observation.resetAt;
      this.#serverRemaining = remaining;
      // Requests still in flight may not be counted in this answer: count them ourselves.
      this.#uncounted = this.#inFlight;
      this.#adoptedGrant = grant;
      this.#known = true;
    };
    if (this.#rolledAt !== undefined) {
      // Our reset was a guess: a header about a window that ends after the turn is the truth.
      if (observation.resetAt <= this.#rolledAt) return; // it described the window that ended
      this.#rolledAt = undefined;
      adopt();
    } else if (this.#resetAt === undefined || observation.resetAt > this.#resetAt + tolerance) {
      adopt(); // a new server window
    } else if (observation.resetAt < this.#resetAt - tolerance) {
      // A late answer from the previous window says nothing about this one.
    } else if (grant > this.#adoptedGrant) {
      // Within the window, the newest request's answer is the freshest count: lower when other
      // keys spend, higher when a rolling window lets old requests go.
      adopt();
    }
    // An older answer that overtook nothing newer than what we know is already accounted for.
    this.#known = true;
  }
}
