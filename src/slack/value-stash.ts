import { randomUUID } from 'node:crypto';
import type { LRUCache } from 'lru-cache';
import { type Clock, systemClock } from '../time/clock.js';
import { ttlCache } from '../ttl-cache.js';

const MAX_VALUE = 2000;
const REF = 'ref:';

/**
 * Button values are limited to 2000 characters, and API cursors are opaque and could be longer.
 * Short values travel in the button; long ones stay here and the button carries a reference.
 */
export class ValueStash {
  readonly #values: LRUCache<string, string>;

  constructor(options: { ttlMs?: number; clock?: Clock; max?: number } = {}) {
    this.#values = ttlCache({
      max: options.max ?? 10_000,
      ttlMs: options.ttlMs ?? 30 * 60_000,
      clock: options.clock ?? systemClock,
    });
  }

  put(value: string): string {
    if (value.length <= MAX_VALUE && !value.startsWith(REF)) return value;
    const key = `${REF}${randomUUID()}`;
    this.#values.set(key, value);
    return key;
  }

  /** The value, or `undefined` when a reference has expired (or came from another process). */
  get(carried: string): string | undefined {
    if (!carried.startsWith(REF)) return carried;
    return this.#values.get(carried);
  }
}
