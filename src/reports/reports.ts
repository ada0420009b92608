import type { Metrics } from '../observability/metrics.js';
import type { KeyValueStore } from '../store/key-value-store.js';
import type { TicketingClient } from '../ticketing/client.js';
import type { TicketingLimits } from '../ticketing/create-client.js';
import type { EventReport } from '../ticketing/schemas.js';
import { awaitReport } from './awaited-report.js';
import { type EventRecords, type KnownQuantity, type ReportRead, storeEventRecords } from './event-record.js';
import { buildReportQueue, type SharedQueueOptions } from './queue/build-report-queue.js';
import type { CacheReadOptions } from './queue/report-queue.js';
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
   * The report at hand, at no report call: the event's record (`event-record.ts`), its last report
   * read with every promo write since applied, read at most one report window ago unless the
   * caller accepts older (`maxAgeMs`) and shows when it was read; else the report the queue's cache
   * still serves, with the same writes applied.
   */
  atHand(eventId: string, options?: { maxAgeMs?: number }): Promise<ReportRead | undefined>;
  /** A promo quantity the service confirmed writing: the event's record knows it at once, on every replica. */
  wrote(eventId: string, promoId: string, quantity: number): Promise<void>;
  /** `report` (read no later than the event's record) with the promo quantities written since. */
  current(eventId: string, report: EventReport): Promise<EventReport>;
  /** A promo code's quantity as the event's record knows it now, and since when. */
  quantityNow(eventId: string, promoId: string): Promise<KnownQuantity | undefined>;
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
  /** Where each event's record is kept: the store (shared by replicas when it is). */
  store: KeyValueStore;
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
  const records: EventRecords = storeEventRecords(options.store, options.clock);
  const queue = await buildReportQueue<W>({
    ...options,
    // The replica that fetched a report delivers it as the record knows the event then.
    shared: shared && {
      ...shared,
      deliver: async (job, outcome) =>
        shared.deliver(
          job,
          outcome.kind === 'report'
            ? { kind: 'report', report: await records.current(job.eventId, outcome.report) }
            : outcome,
        ),
    },
    current: (eventId, report) => records.current(eventId, report),
    // Recorded first: the listeners (the watches' check, the history) and the caller read the record after.
    fetchReport: reads.reading(
      records.reading((eventId, fetchOptions) => ticketing.fetchReport(eventId, fetchOptions)),
    ),
  });
  return {
    onReportRead: (listener) => reads.onReportRead(listener),
    follow: (ask, surface) => queue.follow(ask, surface),
    fetchFor: async (eventId, requester, fetchOptions = {}) =>
      records.current(
        eventId,
        await awaitReport(
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
      ),
    atHand: async (eventId, atHandOptions = {}) => {
      const record = await records.get(eventId).catch(() => undefined);
      const oldest = options.clock.now() - (atHandOptions.maxAgeMs ?? options.limits.reportLimit.windowMs);
      if (record && record.readAt >= oldest) return record;
      // Else what the queue still serves everyone (a watch form's pick was drawn from it): its cache
      // lives from when the answer came, the record's window from when the call went out, so after
      // a slow call the cache outlives the window. Asked for an age, the cached report must meet it.
      const cached = await Promise.resolve(queue.cached(eventId)).catch(() => undefined);
      if (!cached || (atHandOptions.maxAgeMs !== undefined && cached.readAt < oldest)) return undefined;
      return { report: await records.current(eventId, cached.report), readAt: cached.readAt };
    },
    wrote: (eventId, promoId, quantity) => records.wrote(eventId, promoId, quantity),
    current: (eventId, report) => records.current(eventId, report),
    quantityNow: (eventId, promoId) => records.quantity(eventId, promoId),
    spare: async (eventId, spareOptions = {}) => {
      const report = await queue.spare(eventId, spareOptions);
      return report && records.current(eventId, report);
    },
    waiting: () => queue.waiting(),
    exclusive: shared ? shared.store.exclusive.bind(shared.store) : undefined,
    start: () => queue.start(),
    close: () => queue.close(),
  };
}
