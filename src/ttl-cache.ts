import { LRUCache } from 'lru-cache';
import type { Clock } from './time/clock.js';

export interface TtlCacheOptions {
  /** Most entries kept; the least recently used go first. */
  max: number;
  /** How long an entry lives after it is set. */
  ttlMs: number;
  /** Time source, so tests shrink time through options. */
  clock: Clock;
}

/** The one cache of the code base: lru-cache with a size bound, a TTL and the injected clock. */
export function ttlCache<K extends {}, V extends {}>(options: TtlCacheOptions): LRUCache<K, V> {
  // lru-cache reads a TTL of 0 as "never expires": a caller meaning "no cache" must not build one.
  if (!(options.ttlMs > 0)) throw new RangeError(`A cache needs a TTL above zero (got ${options.ttlMs} ms)`);
  return new LRUCache<K, V>({
    max: options.max,
    ttl: options.ttlMs,
    ttlResolution: 0,
    perf: { now: () => options.clock.now() },
  });
}
