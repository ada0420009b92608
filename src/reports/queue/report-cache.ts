import type { KeyValueStore } from '../../store/key-value-store.js';
import type { EventReport } from '../../ticketing/schemas.js';
import type { Clock } from '../../time/clock.js';
import type { CachedReport, CacheReadOptions } from './report-queue.js';

/** Finished reports every replica can serve for a while, so the same report is not fetched twice. */
export interface ReportCache {
  /** Only one read from the service after `readAfterMs`, when given. */
  get(eventId: string, options?: CacheReadOptions): Promise<CachedReport | undefined>;
  /** `readAt`: when the call that read it was sent (a check made of its answer is no older). */
  set(eventId: string, report: EventReport, readAt: number): Promise<void>;
}

/**
 * A store-backed cache of finished reports, each with when it was read; none at a TTL of 0 (keyv
 * would read 0 as "forever").
 */
export function storeReportCache(store: KeyValueStore, ttlMs: number, clock: Clock): ReportCache | undefined {
  if (ttlMs <= 0) return undefined;
  const key = (eventId: string) => `report-read:${eventId}`;
  return {
    get: async (eventId, options = {}) => {
      const cached = await store.get<CachedReport>(key(eventId));
      if (!cached || (options.readAfterMs !== undefined && !(cached.readAt > options.readAfterMs))) return undefined;
      return cached;
    },
    set: (eventId, report, readAt = clock.now()) => store.set(key(eventId), { report, readAt }, ttlMs),
  };
}
