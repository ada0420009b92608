import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { KeyvSqlite } from '@keyv/sqlite';
import { Keyv } from 'keyv';
import { type ClaimStore, SqliteClaims } from './claims.js';

/** The one keyv instance of the process, behind whatever `STORE_URL` names. */
export interface OpenedStore {
  keyv: Keyv;
  claims: ClaimStore;
  /** Where it lives, for the log (never contains credentials). */
  description: string;
  close(): Promise<void>;
}

/** Opens `sqlite://<path>` (creating its folder) or `sqlite://:memory:`; other schemes are refused. */
export async function openStore(url: string, options: { cwd?: string } = {}): Promise<OpenedStore> {
  const match = /^sqlite:\/\/(.+)$/.exec(url);
  if (!match?.[1]) {
    throw new Error(`STORE_URL must be sqlite://<path> (got a "${url.split(':')[0]}" URL)`);
  }
  const inMemory = match[1] === ':memory:';
  const path = inMemory ? ':memory:' : resolve(options.cwd ?? process.cwd(), match[1]);
  if (!inMemory) await mkdir(dirname(path), { recursive: true });
  const adapter = new KeyvSqlite({ uri: `sqlite://${path}`, table: 'eventops', busyTimeout: 5_000 });
  const keyv = new Keyv({ store: adapter, namespace: 'eventops' });
  const claims = new SqliteClaims((sql, ...params) => adapter.query(sql, ...params) as Promise<unknown[]>);
  let closing: Promise<void> | undefined;
  return {
    keyv,
    claims,
    description: inMemory ? 'sqlite in memory (lost on exit)' : `sqlite file ${path}`,
    close: () => {
      closing ??= keyv.disconnect();
      return closing;
    },
  };
}
