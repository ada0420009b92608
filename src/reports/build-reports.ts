import type { Logger } from '../logger.js';
import type { KeyValueStore } from '../store/key-value-store.js';
import type { RedisConnection } from '../store/store-handle.js';
import type { RateLimitSpec } from '../ticketing/rate-limit.js';
import type { CachedReport } from '../ticketing/report-queue.js';
import type { WaitingLimits } from '../ticketing/report-waiting.js';
import type { EventReport } from '../ticketing/schemas.js';
import type { ReportCache, ReportJob, ReportOutcome, SharedReportQueue } from '../ticketing/shared-report-queue.js';
import type { WatchShareOptions } from '../ticketing/watch-share.js';
import type { Clock } from '../time/clock.js';

export interface BuildSharedReportQueueOptions<D> {
  shared: { connection: RedisConnection; namespace: string };
  /** Where finished reports are kept for the other replicas. */
  store: KeyValueStore;
  limit: RateLimitSpec;
  /** How long a finished report is served from the store; 0: not kept. */
  cacheTtlMs: number;
  /** How long a replica holds a job before another may take it over. */
  lockMs: number;
  /** Reports waiting per person and for every workflow step together. @default 5 and 10 */
  waiting?: WaitingLimits | undefined;
  /** The watches' share of slots while people's reports wait. @default one slot in every 5 windows */
  watchShare?: WatchShareOptions | undefined;
  fetchReport(eventId: string, signal: AbortSignal | undefined): Promise<EventReport>;
  deliver(job: ReportJob<D>, outcome: ReportOutcome): Promise<void>;
  clock: Clock;
  logger: Logger;
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

/**
 * With replicas, report requests wait in Redis (BullMQ, loaded only then) and whichever replica
 * fetches one hands it to the person. The caller starts it once the bot is built.
 */
export async function buildSharedReportQueue<D>(
  options: BuildSharedReportQueueOptions<D>,
): Promise<SharedReportQueue<D>> {
  const { SharedReportQueue } = await import('../ticketing/shared-report-queue.js');
  return new SharedReportQueue<D>({
    connection: options.shared.connection,
    // A hash tag, so a Redis Cluster keeps the queue's keys (read together by its scripts) in one slot.
    prefix: `{${options.shared.namespace}}`,
    limit: options.limit,
    fetchReport: options.fetchReport,
    deliver: options.deliver,
    cache: storeReportCache(options.store, options.cacheTtlMs, options.clock),
    waiting: options.waiting,
    watchShare: options.watchShare,
    lockMs: options.lockMs,
    stalledIntervalMs: options.lockMs,
    clock: options.clock,
    logger: options.logger.child({ component: 'reports' }),
  });
}
