import { randomUUID } from 'node:crypto';

const MAX_VALUE = 2000;
const REF = 'ref:';

/**
 * Button values are limited to 2000 characters, and API cursors are opaque and could be longer.
 * Short values travel in the button; long ones stay here and the button carries a reference.
 */
export class ValueStash {
  readonly #values = new Map<string, { value: string; expiresAt: number }>();
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(options: { ttlMs?: number; now?: () => number } = {}) {
    this.#ttlMs = options.ttlMs ?? 30 * 60_000;
    this.#now = options.now ?? Date.now;
  }

  put(value: string): string {
    if (value.length <= MAX_VALUE && !value.startsWith(REF)) return value;
    const now = this.#now();
    for (const [key, entry] of this.#values) if (entry.expiresAt <= now) this.#values.delete(key);
    const key = `${REF}${randomUUID()}`;
    this.#values.set(key, { value, expiresAt: now + this.#ttlMs });
    return key;
  }

  /** The value, or `undefined` when a reference has expired (or came from another process). */
  get(carried: string): string | undefined {
    if (!carried.startsWith(REF)) return carried;
    const entry = this.#values.get(carried);
    return entry && entry.expiresAt > this.#now() ? entry.value : undefined;
  }
}
