import type { ClaimStore } from './claims.js';
import type { KeyValueStore } from './key-value-store.js';

/** The process's one store, behind whatever `STORE_URL` names. */
export interface OpenedStore {
  keyValue: KeyValueStore;
  claims: ClaimStore;
  /** Where it lives, for the log (never contains credentials). */
  description: string;
  close(): Promise<void>;
}
