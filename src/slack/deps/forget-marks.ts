import { randomUUID } from 'node:crypto';
import type { KeyValueStore } from '../../store/key-value-store.js';

/**
 * Marks in the shared store that make a replica's kept answer stale: an event that says who reads
 * a conversation (or who a person is) changed reaches one replica, which moves the mark; every
 * replica reads the mark before it trusts what it kept, and looks again when it moved.
 */
export interface ForgetMarks {
  /** The mark of `key` now (none: never moved, or long ago); throws when the store cannot say. */
  read(key: string): Promise<string | undefined>;
  /** Moves the mark of `key`: every answer kept of it, on any replica, is stale. */
  move(key: string): Promise<void>;
}

/**
 * Marks kept in `store`. A mark is a fresh random value (no counter to lock), kept `keepMs`: longer
 * than any answer it makes stale is kept, so an expired mark can stale nothing still kept.
 */
export function storeForgetMarks(store: Pick<KeyValueStore, 'get' | 'set'>, keepMs: number): ForgetMarks {
  const key = (of: string) => `audience-forgot:${of}`;
  return {
    read: (of) => store.get<string>(key(of)),
    move: (of) => store.set(key(of), randomUUID(), keepMs),
  };
}
