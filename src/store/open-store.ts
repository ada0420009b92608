import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { KeyvSqlite } from '@keyv/sqlite';
import type { KeyvStoreAdapter } from 'keyv';
import { type Logger, silentLogger } from '../logger.js';
import type { Clock } from '../time/clock.js';
import { SqliteClaims } from './claims.js';
import { type KeyLock, keyValueStore, StoreError } from './key-value-store.js';
import type { StoreHandle } from './store-handle.js';

export interface OpenStoreOptions {
  /** Folder that relative paths resolve against. @default process.cwd() */
  cwd?: string;
  logger?: Logger;
  /** Wraps the keyv adapter (tests inject storage faults here). */
  wrapAdapter?: (adapter: KeyvStoreAdapter) => KeyvStoreAdapter;
  /** Every key starts with it, so deployments sharing a Redis share nothing. @default 'eventops' */
  namespace?: string;
  /** How long a Redis lock lives unless its holder renews it (tests shorten it). @default 10 s */
  lockMs?: number;
  /** Whose timer renews a held Redis lock. @default the system's */
  clock?: Clock;
}

type Opener = (url: string, location: string, options: OpenStoreOptions) => Promise<StoreHandle>;

// Redis, its clients and BullMQ load only when a replica asks for them: one process on SQLite
// starts lighter and never has them in memory.
const openRedisStore: Opener = async (url, _location, options) => {
  const { openRedis } = await import('./redis-store.js');
  return openRedis(url, {
    namespace: options.namespace ?? DEFAULT_NAMESPACE,
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.lockMs !== undefined ? { lockMs: options.lockMs } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  });
};

/** Store backends by `STORE_URL` scheme: where a second backend (Redis) plugs in. */
const BACKENDS: Record<string, Opener> = { sqlite: openSqlite, redis: openRedisStore, rediss: openRedisStore };

export const DEFAULT_NAMESPACE = 'eventops';

/** Opens the store `url` names, by its scheme; an unknown scheme is refused, naming the known ones. */
export async function openStore(url: string, options: OpenStoreOptions = {}): Promise<StoreHandle> {
  const match = /^([a-z][a-z0-9+.-]*):\/\/(.+)$/i.exec(url);
  const open = match?.[1] ? BACKENDS[match[1].toLowerCase()] : undefined;
  if (!match?.[2] || !open) {
    const known = Object.keys(BACKENDS).map((scheme) => `${scheme}://`);
    throw new Error(
      `STORE_URL must start with ${known.slice(0, -1).join(', ')} or ${known.at(-1)} (got a "${url.split(':')[0]}" URL)`,
    );
  }
  return open(url, match[2], options);
}

/** `sqlite://<path>` (its folder created) or `sqlite://:memory:`. */
async function openSqlite(_url: string, location: string, options: OpenStoreOptions): Promise<StoreHandle> {
  const inMemory = location === ':memory:';
  const path = inMemory ? ':memory:' : resolve(options.cwd ?? process.cwd(), location);
  if (!inMemory) await mkdir(dirname(path), { recursive: true });
  const adapter = new KeyvSqlite({ uri: `sqlite://${path}`, table: 'eventops', busyTimeout: 5_000 });
  const logger = options.logger ?? silentLogger;
  const keyValue = keyValueStore(options.wrapAdapter ? options.wrapAdapter(adapter) : adapter, {
    namespace: options.namespace ?? DEFAULT_NAMESPACE,
    logger,
    lock: sqliteLock((sql) => adapter.query(sql) as Promise<unknown>),
  });
  const claims = new SqliteClaims(async (sql, ...params) => {
    try {
      return (await adapter.query(sql, ...params)) as unknown[];
    } catch (error) {
      logger.error('The claim store failed', { error });
      throw new StoreError('The store could not run a claim query', { cause: error });
    }
  });
  // Both tables exist before anyone uses the store: a broken path fails the start, and no first use
  // waits on another process's transaction while still creating its table.
  try {
    await keyValue.get('health:probe');
    await claims.get('health:probe');
  } catch (error) {
    await keyValue.close().catch(() => undefined);
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    keyValue,
    claims,
    description: inMemory ? 'sqlite in memory (lost on exit)' : `sqlite file ${path}`,
    close: () => {
      closing ??= keyValue.close();
      return closing;
    },
  };
}

/**
 * Read-modify-write under `BEGIN IMMEDIATE`: SQLite's write lock, so processes sharing the file
 * take turns (each waits up to the busy timeout, which also stands for `waitMs`). One transaction
 * at a time per connection.
 */
function sqliteLock(query: (sql: string) => Promise<unknown>): KeyLock {
  let chain: Promise<unknown> = Promise.resolve();
  return <T>(_key: string, work: () => Promise<T>): Promise<T> => {
    const run = chain
      .catch(() => undefined)
      .then(async () => {
        await query('BEGIN IMMEDIATE');
        try {
          const result = await work();
          await query('COMMIT');
          return result;
        } catch (error) {
          await query('ROLLBACK').catch(() => undefined);
          throw error;
        }
      });
    chain = run;
    return run;
  };
}
