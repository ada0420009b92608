import type { Logger } from '../../logger.js';
import type { RedisConnection } from '../../store/store-handle.js';
import type { RateLimitSpec } from '../../ticketing/rate-limit.js';
import type { EventReport } from '../../ticketing/schemas.js';
import type { Clock } from '../../time/clock.js';
import type { ReportCache } from './report-cache.js';
import type { ReportOutcome } from './report-queue.js';
import type { WaitingLimits } from './report-waiting.js';
import type { ReportJob } from './shared-report-job.js';
import type { WatchShareOptions } from './watch-share.js';

export interface SharedReportQueueOptions<D> {
  /** Where BullMQ connects: the shared Redis. */
  connection: RedisConnection;
  /** @default 'eventops-reports' */
  name?: string;
  /**
   * The namespace of every key: BullMQ's `prefix`, and the rolling report slots' keys
   * (`<prefix>:<name>:rolling:*`). Give it a hash tag (`{eventops}`) for a Redis Cluster.
   * @default 'bull'
   */
  prefix?: string;
  /** The report endpoint's limit, for all replicas together (the spec's 3 per minute). */
  limit: RateLimitSpec;
  /** Fetches one report through the organization's budget. */
  fetchReport(eventId: string, signal: AbortSignal | undefined): Promise<EventReport>;
  /** Hands the outcome to the person, from whichever replica fetched it. */
  deliver(job: ReportJob<D>, outcome: ReportOutcome): Promise<void>;
  /** Where finished reports are kept for the others (the spec's limit makes each one dear). */
  cache?: ReportCache | undefined;
  /**
   * How long a replica holds a job before others may take it (renewed while it lives), and how
   * often stalled jobs are looked for: a killed replica's report is fetched by another within
   * about their sum. @default 30000 each
   */
  lockMs?: number;
  stalledIntervalMs?: number;
  /**
   * How long a request may wait and be fetched before the person is told to try later (the
   * in-process queue's deadline). @default 600000
   */
  deadlineMs?: number;
  /**
   * How old a look at the queue may be when a person's progress is asked for: one look serves
   * every person this replica follows. @default 500
   */
  progressSnapshotMs?: number;
  /**
   * How long a job handed out waits for those handed out before it, whose turn comes first, to
   * start (one a dead replica holds is not waited for longer). @default 200
   */
  turnWaitMs?: number;
  /** Wait between two attempts of a job whose handler threw. @default 1000 */
  retryDelayMs?: number;
  /** Reports waiting per requester. @default 5 a person, 10 for every workflow step together */
  waiting?: WaitingLimits | undefined;
  /** The watches' share of slots while people's reports wait. @default one slot in every 5 windows */
  watchShare?: WatchShareOptions | undefined;
  clock?: Clock;
  logger?: Logger;
}
