import { randomUUID } from 'node:crypto';
import type { ClaimStore } from '../store/claims.js';
import type { KeyValueStore } from '../store/key-value-store.js';
import type { Clock } from '../time/clock.js';

/** A promo change someone asked for and has not confirmed yet, as stored. */
export interface PendingPromoChange {
  id: string;
  requestedBy: string;
  channelId: string;
  eventId: string;
  /** The event's name when it has one (raw text, escaped when shown). */
  eventName: string | undefined;
  promoId: string;
  quantity: number;
  /** The code people know (`EARLYBIRD`), when a report named it. */
  code?: string | undefined;
  /** The quantity before, as a report read when the change was asked for named it. */
  previousQuantity?: number | undefined;
  /** How often it was redeemed, as the same report named it. */
  redeemed?: number | undefined;
  createdAt: number;
  expiresAt: number;
}

export interface PendingPromoChangesOptions {
  store: KeyValueStore;
  claims: ClaimStore;
  clock: Clock;
  /** How long a confirmation stays valid. @default 10 minutes */
  ttlMs?: number;
}

/**
 * Pending changes live in the store, not in the button: the button carries only the opaque id,
 * so nothing a client sends back can alter the change. A change is used at most once: confirming
 * or cancelling claims its id atomically in the claim store, across restarts and processes.
 */
export class PendingPromoChanges {
  readonly #store: KeyValueStore;
  readonly #claims: ClaimStore;
  readonly #clock: Clock;
  readonly ttlMs: number;

  constructor(options: PendingPromoChangesOptions) {
    this.#store = options.store;
    this.#claims = options.claims;
    this.#clock = options.clock;
    this.ttlMs = options.ttlMs ?? 10 * 60_000;
  }

  async create(change: Omit<PendingPromoChange, 'id' | 'createdAt' | 'expiresAt'>): Promise<PendingPromoChange> {
    const now = this.#clock.now();
    const pending: PendingPromoChange = { ...change, id: randomUUID(), createdAt: now, expiresAt: now + this.ttlMs };
    // Kept well past its expiry so a late click hears "expired" rather than "unknown".
    await this.#store.set(key(pending.id), pending, this.ttlMs * 6);
    return pending;
  }

  /** The stored change, if the id names one (ids from outside are checked, never trusted). */
  async get(id: string): Promise<PendingPromoChange | undefined> {
    if (!/^[0-9a-f-]{36}$/.test(id)) return undefined;
    return this.#store.get<PendingPromoChange>(key(id));
  }

  /** Uses the change up: true for exactly one caller, ever. */
  claim(id: string, by: string): Promise<boolean> {
    return this.#claims.claim(`promo-change:${id}`, by, this.#clock.now());
  }
}

const key = (id: string) => `promo-change:${id}`;
