import { Keyv, type KeyvStoreAdapter } from 'keyv';
import type { Logger } from '../logger.js';
import { NamedError } from '../named-error.js';

/** The store could not be read or written: nothing was changed on the strength of a failed read. */
export class StoreError extends NamedError {
  readonly code = 'store_unavailable';
}

export function isStoreError(value: unknown): value is StoreError {
  return value instanceof StoreError;
}

/** Another process held the lock for longer than the caller was willing to wait. */
export class LockBusy extends NamedError {
  readonly code = 'lock_busy';
  constructor(key: string) {
    super(`The lock on ${key} is held elsewhere`);
  }
}

/** How a lock across processes is held (shared backends only). */
export interface LockOptions {
  /** How long to wait for another process's hold before giving up with `LockBusy`; 0: take it only if free now. @default the lock's own wait (10 s on Redis) */
  waitMs?: number;
  /** How long the hold lives unless renewed (its holder renews it while alive): a holder that dies frees it this soon. At most, and by default, the store's (10 s on Redis); more than 0. */
  lockMs?: number;
}

/**
 * The narrow key-value interface every feature store uses. Failures throw `StoreError`: a read
 * that failed never looks like an empty key, so nothing is written back over data not read.
 */
export interface KeyValueStore {
  get<T>(key: string): Promise<T | undefined>;
  /** `ttlMs`: the entry disappears after this long. */
  set(key: string, value: unknown, ttlMs?: number): Promise<void>;
  delete(key: string): Promise<boolean>;
  /**
   * Read-modify-write of one key, serialised with every other `update` of that key in this
   * process (and, on a shared backend, under its lock across processes). `change` sees the current value (undefined when absent) and returns the new one, or
   * `undefined` to leave it as it is.
   */
  update<T>(key: string, change: (current: T | undefined) => T | undefined): Promise<T | undefined>;
  /**
   * Runs `work` holding `key`'s lock: in turn with every other `update` or `exclusive` of that key
   * in this process and, on a shared backend, in every other process (held for as long as `work`
   * runs). `options.waitMs` bounds the wait for another process's hold (shared backends only).
   */
  exclusive<T>(key: string, work: () => Promise<T>, options?: LockOptions): Promise<T>;
  /**
   * Runs `work` alone among the sections of `key`: one at a time in this process, in the order
   * they were asked, and on a shared backend one at a time across processes. Unlike `exclusive`
   * it holds no write lock on the store (SQLite's is a transaction for the whole file), so `work`
   * may read and `update` any key: a section is for work that takes a while, like one event's check.
   */
  section<T>(key: string, work: () => Promise<T>, options?: LockOptions): Promise<T>;
  close(): Promise<void>;
}

/** Runs `work` holding a lock on `key` (across processes when the backend is shared). */
export type KeyLock = <T>(key: string, work: () => Promise<T>, options?: LockOptions) => Promise<T>;

const noLock: KeyLock = (_key, work) => work();

/** Runs calls of one key one after another, in the order they came: each after the last has settled. */
function inTurn(): KeyLock {
  const tails = new Map<string, Promise<unknown>>();
  return (key, work) => {
    const next = (tails.get(key) ?? Promise.resolve()).catch(() => undefined).then(work);
    tails.set(key, next);
    const forget = () => tails.get(key) === next && tails.delete(key);
    void next.then(forget, forget);
    return next;
  };
}

/**
 * keyv over `adapter`, with errors thrown (and logged) rather than swallowed. `lock` holds a key
 * across processes for `update` and `exclusive`; `sectionLock` for `section` (a shared backend's
 * lock; none when one process owns the store).
 */
export function keyValueStore(
  adapter: KeyvStoreAdapter,
  options: { namespace: string; logger: Logger; lock?: KeyLock; sectionLock?: KeyLock },
): KeyValueStore {
  const keyv = new Keyv({ store: adapter, namespace: options.namespace, throwOnErrors: true });
  // keyv also emits what it throws; one log line per failure comes from `wrap` below.
  keyv.on('error', () => {});
  const locks = inTurn();
  const sections = inTurn();
  const wrap = async <T>(what: string, key: string, work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      options.logger.error('The store failed', { operation: what, key, error });
      throw new StoreError(`The store could not ${what} ${key}`, { cause: error });
    }
  };
  const store: KeyValueStore = {
    get: (key) => wrap('read', key, () => keyv.get(key)),
    set: (key, value, ttlMs) =>
      wrap('write', key, async () => {
        if (!(await keyv.set(key, value, ttlMs))) throw new Error('the adapter refused the write');
      }),
    delete: (key) => wrap('delete', key, () => keyv.delete(key)),
    update: <T>(key: string, change: (current: T | undefined) => T | undefined) =>
      store.exclusive(key, async () => {
        const current = await store.get<T>(key);
        const updated = change(current);
        if (updated === undefined) return current;
        await store.set(key, updated);
        return updated;
      }),
    exclusive: <T>(key: string, work: () => Promise<T>, lockOptions?: LockOptions): Promise<T> =>
      locks(key, () => (options.lock ?? noLock)(key, work, lockOptions)),
    // Apart from the keys' own locks: a section of a key never waits for an update of that key.
    section: <T>(key: string, work: () => Promise<T>, lockOptions?: LockOptions): Promise<T> =>
      sections(key, () => (options.sectionLock ?? noLock)(`section:${key}`, work, lockOptions)),
    close: () => keyv.disconnect(),
  };
  return store;
}
