import { createHash, randomBytes } from 'node:crypto';
import type { KeyValueStore } from '../store/key-value-store.js';
import type { Clock } from '../time/clock.js';

/** A person's MCP token as App Home lists it: never the token itself, which is kept only as a hash. */
export interface McpTokenInfo {
  createdAt: number;
  expiresAt: number;
  /** When an agent last called a tool with it (recorded at most once a minute). */
  lastUsedAt?: number | undefined;
}

interface Stored extends McpTokenInfo {
  hash: string;
}

/** How much later a use is recorded again: a token used in a loop writes once a minute. */
const LAST_USE_STEP_MS = 60_000;
const PREFIX = 'eo_mcp_';

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');
const tokenKey = (hash: string) => `mcp-token:${hash}`;
const personKey = (userId: string) => `mcp-token-of:${userId}`;

/**
 * Each person's one MCP token, tied to their Slack user id: made by `/events mcp token` (a new one
 * ends the old), kept only as its SHA-256 in the shared store, expiring, and ended at once on
 * every replica by `revoke` (nothing is cached: each call reads the store).
 */
export class McpTokens {
  readonly #store: KeyValueStore;
  readonly #clock: Clock;
  readonly ttlMs: number;

  constructor(options: { store: KeyValueStore; clock: Clock; ttlMs: number }) {
    this.#store = options.store;
    this.#clock = options.clock;
    this.ttlMs = options.ttlMs;
  }

  /** A new token for `userId` (shown to them once); any earlier one stops working. */
  async issue(userId: string): Promise<{ token: string; expiresAt: number }> {
    const token = `${PREFIX}${randomBytes(32).toString('base64url')}`;
    const hash = hashOf(token);
    const createdAt = this.#clock.now();
    const expiresAt = createdAt + this.ttlMs;
    const earlier = await this.#store.get<Stored>(personKey(userId));
    await this.#store.set(tokenKey(hash), { userId, expiresAt }, this.ttlMs);
    await this.#store.set(personKey(userId), { hash, createdAt, expiresAt } satisfies Stored, this.ttlMs);
    if (earlier && earlier.hash !== hash) await this.#store.delete(tokenKey(earlier.hash));
    return { token, expiresAt };
  }

  /** Ends `userId`'s token at once; false when they had none. */
  async revoke(userId: string): Promise<boolean> {
    const stored = await this.#store.get<Stored>(personKey(userId));
    if (!stored) return false;
    await this.#store.delete(tokenKey(stored.hash));
    await this.#store.delete(personKey(userId));
    return true;
  }

  /** The person a token stands for, or undefined (unknown, expired, revoked, replaced); its use is recorded. */
  async verify(token: string): Promise<string | undefined> {
    if (!token.startsWith(PREFIX) || token.length > 200) return undefined;
    const hash = hashOf(token);
    const found = await this.#store.get<{ userId: string; expiresAt: number }>(tokenKey(hash));
    const now = this.#clock.now();
    if (!found || typeof found.userId !== 'string' || now >= found.expiresAt) return undefined;
    // The person's own record must still name this token: a replaced one is ended even if its key lingers.
    const stored = await this.#store.get<Stored>(personKey(found.userId));
    if (stored?.hash !== hash) return undefined;
    if (stored.lastUsedAt === undefined || now - stored.lastUsedAt >= LAST_USE_STEP_MS)
      await this.#recordUse(found.userId, hash, now).catch(() => undefined);
    return found.userId;
  }

  /** Its last use, under the person's key's lock and keeping its expiry; never for a token replaced or revoked meanwhile. */
  async #recordUse(userId: string, hash: string, now: number): Promise<void> {
    const key = personKey(userId);
    await this.#store.exclusive(key, async () => {
      const current = await this.#store.get<Stored>(key);
      if (current?.hash === hash && current.expiresAt > now)
        await this.#store.set(key, { ...current, lastUsedAt: now } satisfies Stored, current.expiresAt - now);
    });
  }

  /** `userId`'s token as App Home lists it, or undefined. */
  async of(userId: string): Promise<McpTokenInfo | undefined> {
    const stored = await this.#store.get<Stored>(personKey(userId));
    if (!stored || this.#clock.now() >= stored.expiresAt) return undefined;
    return { createdAt: stored.createdAt, expiresAt: stored.expiresAt, lastUsedAt: stored.lastUsedAt };
  }
}
