import type { Logger } from '../logger.js';
import { type Clock, every } from '../time/clock.js';
import type { Claim, ClaimStore } from './claims.js';

/** How a claim on a piece of work came out. */
export type ClaimOutcome =
  /** First: the work is this owner's. */
  | { kind: 'mine' }
  /** Taken over from an attempt that failed or whose owner died: read what was posted before redoing it. */
  | { kind: 'recovered'; previous: Claim }
  | { kind: 'done' }
  /** Another owner is on it (its lease runs), or just failed and may try again first. */
  | { kind: 'busy' };

/** Every settled claim is kept this long, then pruned: one retention for watches, digests and the catalog. */
export const CLAIM_RETENTION_MS = 14 * 86_400_000;
const PRUNE_EVERY_MS = 3_600_000;
/** Most leases a claim is renewed for: work stuck for good lets it lapse, as a dead owner's would. */
const MAX_LEASES = 10;

export interface ClaimedWorkOptions {
  claims: ClaimStore;
  /** This process's name on its claims. */
  owner: string;
  /** A claim not renewed within this long is taken for a crash and taken over. */
  leaseMs: number;
  /** How long a failed attempt is left to its owner before another may try. @default leaseMs */
  failedRetryMs?: number;
  clock: Clock;
  logger: Logger;
  /** Settled claims older than this are pruned. @default 14 days */
  retentionMs?: number;
}

/**
 * Work done once across replicas and crashes, written once for everything that needs it (watch
 * checks, cards, alerts and summaries; digests; the catalog's crawl): claim it, or take it over
 * once its lease ran out (the caller then reads what was posted before redoing it); renew the
 * claim while the work runs; settle it; prune settled claims after one retention.
 */
export class ClaimedWork {
  readonly #o: ClaimedWorkOptions;
  #lastPrune = Number.NEGATIVE_INFINITY;

  constructor(options: ClaimedWorkOptions) {
    if (!(options.leaseMs > 0)) throw new RangeError(`A claim's lease must be above zero (got ${options.leaseMs} ms)`);
    this.#o = options;
  }

  get owner(): string {
    return this.#o.owner;
  }

  /** Claims `key`, or takes it over from a failed attempt or a dead owner. */
  async claim(key: string): Promise<ClaimOutcome> {
    const now = this.#o.clock.now();
    if (await this.#o.claims.claim(key, this.#o.owner, now)) return { kind: 'mine' };
    const claim = await this.#o.claims.get(key);
    if (!claim) return { kind: 'busy' };
    if (claim.state === 'done') return { kind: 'done' };
    if (claim.state === 'claimed' && now - claim.at < this.#o.leaseMs) return { kind: 'busy' };
    if (claim.state === 'failed' && now - claim.at < (this.#o.failedRetryMs ?? this.#o.leaseMs))
      return { kind: 'busy' };
    return (await this.#o.claims.takeOver(key, claim, this.#o.owner, now))
      ? { kind: 'recovered', previous: claim }
      : { kind: 'busy' };
  }

  settle(key: string, state: 'done' | 'failed'): Promise<void> {
    return this.#o.claims.settle(key, this.#o.owner, state, this.#o.clock.now());
  }

  /** Gives the work back untried (someone may do it now). */
  release(key: string): Promise<void> {
    return this.#o.claims.release(key, this.#o.owner);
  }

  /**
   * Runs `work` holding the claim on `key` (claimed first): renewed every half lease, for ten
   * leases at most, so a dead (or stuck) owner's claim lapses, never one whose work is merely slow.
   */
  async holding<T>(key: string, work: () => Promise<T>): Promise<T> {
    let held = await this.#o.claims.get(key);
    let renewals = 0;
    const renewal = every(this.#o.clock, this.#o.leaseMs / 2, () => {
      renewals += 1;
      if (renewals > MAX_LEASES * 2) {
        renewal.stop();
        this.#o.logger.error('A claim was held ten leases; no longer renewed', { key });
        return;
      }
      const at = this.#o.clock.now();
      if (!held || held.owner !== this.#o.owner || held.state !== 'claimed') return;
      const expected = held;
      void this.#o.claims
        .takeOver(key, expected, this.#o.owner, at)
        .then((renewed) => {
          if (renewed && held === expected) held = { owner: this.#o.owner, state: 'claimed', at };
        })
        .catch(() => undefined);
    });
    try {
      return await work();
    } finally {
      renewal.stop();
    }
  }

  /** Prunes settled claims older than the retention, at most once an hour; returns how many went. */
  async prune(): Promise<number> {
    const now = this.#o.clock.now();
    if (now - this.#lastPrune < PRUNE_EVERY_MS) return 0;
    this.#lastPrune = now;
    const pruned = await this.#o.claims
      .prune(now - (this.#o.retentionMs ?? CLAIM_RETENTION_MS))
      .catch((error: unknown) => {
        this.#o.logger.warn('Could not prune old claims', { error });
        return 0;
      });
    if (pruned > 0) this.#o.logger.info('Pruned old claims', { pruned });
    return pruned;
  }
}
