import type { ClaimStore } from './claims.js';
import type { KeyValueStore } from './key-value-store.js';

/** The process's one store, behind whatever `STORE_URL` names. */
export interface OpenedStore {
  keyValue: KeyValueStore;
  claims: ClaimStore;
  /** Where it lives, for the log (never contains credentials). */
  description: string;
  close(): Promise<void>;
  /** What several replicas coordinate through, when the store is shared (Redis); none for SQLite. */
  shared?: SharedRedis;
}

/** The shared Redis, for the pieces that coordinate replicas beyond keys and values. */
export interface SharedRedis {
  /** Runs a Lua script atomically (EVALSHA, loading it once). */
  runScript(script: string, keys: string[], args: string[]): Promise<unknown>;
  /** Connection settings for a client of its own (BullMQ's). */
  connection: RedisConnection;
}

export interface RedisConnection {
  host: string;
  port: number;
  db: number;
  username?: string;
  password?: string;
}
