import type { Metrics } from '../../observability/metrics.js';
import type { KeyValueStore } from '../../store/key-value-store.js';
import type { RedisConnection } from '../../store/store-handle.js';
import type { TicketingLimits } from '../../ticketing/create-client.js';
import type { RateLimitObservation } from '../../ticketing/rate-limit-headers.js';
import { type Clock, systemClock } from '../../time/clock.js';
import type { ReportFlowDeps } from '../report-flow.js';
import type { FetchReport } from '../report-reads.js';
import type { ReportDelivery } from '../report-surface.js';
import { InProcessReportQueue } from './in-process-report-queue.js';
import { inProcessReports } from './in-process-reports.js';
import { storeReportCache } from './report-cache.js';
import type { ReportOutcome, ReportQueue } from './report-queue.js';
import type { WaitingLimits } from './report-waiting.js';
import type { ReportJob } from './shared-report-job.js';
import type { SharedReportQueue } from './shared-report-queue.js';
import { sharedReports } from './shared-reports.js';
import type { WatchShareOptions } from './watch-share.js';

/** The queue's limits of reports waiting and the watches' share, as the configuration gives them. */
export function reportQueueLimits(limits: TicketingLimits): { waiting: WaitingLimits; watchShare: WatchShareOptions } {
  const { reportsWaitingPerPerson: perPerson, reportStepsWaiting: steps, watchSlotEveryWindows } = limits;
  return {
    waiting: { ...(perPerson === undefined ? {} : { perPerson }), ...(steps === undefined ? {} : { steps }) },
    watchShare: watchSlotEveryWindows === undefined ? {} : { everyWindows: watchSlotEveryWindows },
  };
}

/**
 * This process's own queue over `fetchReport`, hearing each call's report headers: the one queue
 * of one process, and of a caller that follows its tickets itself (the CLI, a bench).
 */
export function inProcessQueue(
  fetchReport: FetchReport,
  limits: TicketingLimits,
  clock: Clock = systemClock,
): InProcessReportQueue {
  const queue: InProcessReportQueue = new InProcessReportQueue({
    limit: limits.reportLimit.limit,
    windowMs: limits.reportLimit.windowMs,
    cacheTtlMs: limits.reportCacheTtlMs,
    ...reportQueueLimits(limits),
    clock,
    fetchReport: (eventId, priority, signal) =>
      fetchReport(eventId, { priority, signal, onHeaders: (observation) => queue.observe(observation) }),
  });
  return queue;
}

/** What the replicas share their report queue through, and how a report reaches its person from any of them. */
export interface SharedQueueOptions<W> {
  connection: RedisConnection;
  namespace: string;
  /** Where finished reports are kept for the other replicas. */
  store: KeyValueStore;
  /** How long a replica holds a job before another may take it over. */
  lockMs: number;
  deliver(job: ReportJob<ReportDelivery<W>>, outcome: ReportOutcome): Promise<void>;
}

export interface BuildReportQueueOptions<W> extends ReportFlowDeps {
  /** One report through the organization's budget: the client's `fetchReport`, every read heard. */
  fetchReport: FetchReport;
  limits: TicketingLimits;
  /** The time from request to answer, in one process (absent in some tests). */
  metrics?: Pick<Metrics, 'reportWait'> | undefined;
  /** With replicas; undefined in one process. */
  shared?: SharedQueueOptions<W> | undefined;
}

/**
 * The report queue: in memory for one process, in Redis (BullMQ, loaded only then) for replicas,
 * where whichever replica fetches a report hands it to the person. Either way the queue hears the
 * report endpoint's own headers from each call it makes. `start()` once the bot is built.
 */
export async function buildReportQueue<W>(options: BuildReportQueueOptions<W>): Promise<ReportQueue<W>> {
  const { limits, shared, clock, logger } = options;
  const { reportLimit } = limits;
  if (!shared) return inProcessReports<W>({ ...options, queue: inProcessQueue(options.fetchReport, limits, clock) });
  const { SharedReportQueue } = await import('./shared-report-queue.js');
  const onHeaders = (observation: RateLimitObservation) => queue.observe(observation);
  const queue: SharedReportQueue<ReportDelivery<W>> = new SharedReportQueue<ReportDelivery<W>>({
    connection: shared.connection,
    // A hash tag, so a Redis Cluster keeps the queue's keys (read together by its scripts) in one slot.
    prefix: `{${shared.namespace}}`,
    limit: reportLimit,
    fetchReport: (eventId, signal) => options.fetchReport(eventId, { priority: 'interactive', signal, onHeaders }),
    deliver: shared.deliver,
    cache: storeReportCache(shared.store, limits.reportCacheTtlMs, clock),
    ...reportQueueLimits(limits),
    lockMs: shared.lockMs,
    stalledIntervalMs: shared.lockMs,
    clock,
    logger: logger.child({ component: 'reports' }),
  });
  return sharedReports<W>({
    ...options,
    queue,
    fetchSpare: (eventId, signal) => options.fetchReport(eventId, { priority: 'background', signal, onHeaders }),
  });
}
