import type { Metrics } from '../observability/metrics.js';
import type { KeyValueStore } from '../store/key-value-store.js';
import type { TicketingClient } from '../ticketing/client.js';
import type { TicketingLimits } from '../ticketing/create-client.js';
import type { EventReport } from '../ticketing/schemas.js';
import { awaitReport } from './awaited-report.js';
import { buildReportQueue, type SharedQueueOptions } from './queue/build-report-queue.js';
import type { CacheReadOptions } from './queue/report-queue.js';
import { type ReportRead, type ReportSource, reportAtHand } from './report-at-hand.js';
import type { ReportFlowDeps } from './report-flow.js';
import { type ReportReadSubscription, ReportReads } from './report-reads.js';
import type { ReportStatus } from './report-status.js';
import type { ReportAsk, ReportSurface } from './report-surface.js';

/**
 * Everything a caller does with reports, whether this process keeps the report limit alone or
 * replicas share one queue in Redis: the choice is made once, in `buildReports`, and listeners,
 * workflow steps, promo lookups and watches never ask which.
 */
export interface Reports<W> extends ReportReadSubscription {
  /** Follows a request (a person's, a workflow step's) to its surface, in the requester's turn. */
  follow(ask: ReportAsk, surface: ReportSurface<W>): Promise<void>;
  /**
   * The report for a caller that needs its figures (a promo code looked up in it), in
   * `requester`'s turn within the report limit; `fresh`: past the cache (the one at hand did not answer).
   */
  fetchFor(
    eventId: string,
    requester: string,
    options?: { fresh?: boolean | undefined; onProgress?: ((status: ReportStatus) => void) | undefined },
  ): Promise<EventReport>;
  /**
   * The freshest report at hand, at no report call (a watch's last check, the caches), read at most
   * one report window ago unless the caller accepts older (`maxAgeMs`) and shows when it was read.
   */
  atHand(eventId: string, options?: { maxAgeMs?: number }): Promise<ReportRead | undefined>;
  /** The report now for background work (a watch), only from a slot people leave; else undefined. */
  spare(eventId: string, options?: CacheReadOptions): Promise<EventReport | undefined>;
  /** Report requests waiting now (metrics). */
  waiting(): Promise<number>;
  /** With replicas, the store's lock that orders the edits of one report's message. */
  exclusive: KeyValueStore['exclusive'] | undefined;
  /** Starts taking reports from the replicas' shared queue, once the bot is built. */
  start(): void;
  close(): Promise<void>;
}

export interface BuildReportsOptions<W> extends ReportFlowDeps {
  ticketing: Pick<TicketingClient, 'fetchReport'>;
  limits: TicketingLimits;
  metrics?: Pick<Metrics, 'reportWait'> | undefined;
  /** With replicas: their shared queue's Redis, store and delivery; undefined in one process. */
  shared?: SharedQueueOptions<W> | undefined;
  /** A watch's last check of the event, read when a report at hand is wanted (the watches exist later). */
  lastCheck: (eventId: string) => Promise<{ report: EventReport; checkedAt: number } | undefined>;
  /**
   * Where every report read goes, when made before the reports so that what follows a read (the
   * sales history) can be built first. @default a new one
   */
  reads?: ReportReads | undefined;
}

/**
 * The report service over its queue (`queue/`), with the one subscription every report read
 * goes to (`onReportRead`: the sales history, promo codes, watches register there).
 */
export async function buildReports<W>(options: BuildReportsOptions<W>): Promise<Reports<W>> {
  const { shared, ticketing } = options;
  const reads = options.reads ?? new ReportReads(options.logger);
  const queue = await buildReportQueue<W>({
    ...options,
    fetchReport: reads.reading((eventId, fetchOptions) => ticketing.fetchReport(eventId, fetchOptions)),
  });
  const sources: ReportSource[] = [
    async (id) => {
      const check = await options.lastCheck(id);
      return check && { report: check.report, readAt: check.checkedAt };
    },
    (id, readAfterMs) => queue.cached(id, { readAfterMs }),
  ];
  return {
    onReportRead: (listener) => reads.onReportRead(listener),
    follow: (ask, surface) => queue.follow(ask, surface),
    fetchFor: (eventId, requester, fetchOptions = {}) =>
      awaitReport(
        queue,
        {
          // With replicas another one may fetch it: its answer comes through the store.
          store: shared?.store,
          cached: async (id) => (await queue.cached(id))?.report,
          clock: options.clock,
          stopping: options.stopping,
        },
        { eventId, label: eventId, userId: requester, ...(fetchOptions.fresh ? { fresh: true } : {}) },
        fetchOptions.onProgress,
      ),
    atHand: (eventId, atHandOptions = {}) =>
      reportAtHand(sources, eventId, {
        now: options.clock.now(),
        maxAgeMs: atHandOptions.maxAgeMs ?? options.limits.reportLimit.windowMs,
      }),
    spare: (eventId, spareOptions = {}) => queue.spare(eventId, spareOptions),
    waiting: () => queue.waiting(),
    exclusive: shared ? shared.store.exclusive.bind(shared.store) : undefined,
    start: () => queue.start(),
    close: () => queue.close(),
  };
}
