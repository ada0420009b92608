import type { ClaimStore } from './claims.js';
import type { KeyValueStore } from './key-value-store.js';

/** The process's one store, behind whatever `STORE_URL` names. */
export interface StoreHandle {
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
  /** The deployment's namespace: every key anything writes to this Redis starts with it. */
  namespace: string;
}

export interface RedisConnection {
  host: string;
  port: number;
  db: number;
  username?: string;
  password?: string;
  /**
   * Present for `rediss://`: TLS, trusting the system CAs plus `NODE_EXTRA_CA_CERTS` (Node adds
   * those to its default store), as ioredis takes it. `servername` is the host unless it is an IP.
   */
  tls?: { servername?: string };
}
