import type { EventReport } from '../../ticketing/schemas.js';
import type { ReportFlow } from '../report-flow.js';

/** Where a report request stands. */
export interface ReportProgress {
  state: 'queued' | 'fetching' | 'done';
  /** Reports admitted before this one: 0 once it is being fetched. */
  position: number;
  /** Estimated ms until this report's call is admitted (0 once fetching). */
  estimatedWaitMs: number;
}

/** Which cached reports may serve. */
export interface CacheReadOptions {
  /** Only a report read from the service after this time (ms, the queue's clock): newer than what the caller has. */
  readAfterMs?: number | undefined;
}

/** A cached report, with when the call that read it from the service was sent. */
export interface CachedReport {
  report: EventReport;
  readAt: number;
}

export type ReportOutcome = { kind: 'report'; report: EventReport } | { kind: 'failed'; error: unknown };

/**
 * The report queue, one shape whether one process keeps the report limit alone
 * (`inProcessReports`) or replicas share it in Redis (`sharedReports`); `buildReportQueue`
 * chooses once. People take turns, a watch gets a slot nobody waits for (or the watches' share),
 * concurrent requests for one event share one call, and a finished report is cached a while.
 */
export interface ReportQueue<W> extends ReportFlow<W> {
  /** A report read lately, still fresh in the queue's cache, at no cost; else undefined. */
  cached(eventId: string, options?: CacheReadOptions): Promise<CachedReport | undefined>;
  /**
   * The report now for background work (a watch), only from a slot people leave (or the watches'
   * share while they wait), or from the cache; else undefined.
   */
  spare(eventId: string, options?: CacheReadOptions): Promise<EventReport | undefined>;
  /** Report requests waiting for a slot (metrics); across replicas with a shared queue. */
  waiting(): Promise<number>;
  /** Starts taking work from the shared queue, once the bot is built (nothing in one process). */
  start(): void;
  close(): Promise<void>;
}
