import type { KeyvStoreAdapter } from 'keyv';

/** Which operations of a real store adapter fail, as a disk or a database would. */
export interface StoreFaults {
  reads: boolean;
  writes: boolean;
}

/**
 * Wraps a real keyv adapter (SQLite in the tests) so reads or writes fail on demand: the only way
 * to make SQLite fail one operation and not the next. Everything else goes to the real adapter.
 */
export function faultyAdapter(adapter: KeyvStoreAdapter, faults: StoreFaults): KeyvStoreAdapter {
  return new Proxy(adapter, {
    get(target, property, receiver) {
      if (property === 'get' && faults.reads) {
        return async () => {
          throw new Error('SQLITE_IOERR: disk I/O error (injected)');
        };
      }
      if ((property === 'set' || property === 'delete') && faults.writes) {
        return async () => {
          throw new Error('SQLITE_FULL: database or disk is full (injected)');
        };
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
