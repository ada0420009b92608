import type { Metrics } from '../observability/metrics.js';
import type { KeyValueStore } from '../store/key-value-store.js';
import type { TicketingClient } from '../ticketing/client.js';
import type { CacheReadOptions } from '../ticketing/report-queue.js';
import type { EventReport } from '../ticketing/schemas.js';
import type { SharedReportQueue } from '../ticketing/shared-report-queue.js';
import { awaitReport } from './awaited-report.js';
import { inProcessReports } from './in-process-reports.js';
import { type ReportRead, type ReportSource, reportAtHand } from './report-at-hand.js';
import type { ReportFlowDeps } from './report-flow.js';
import type { ReportAsk, ReportSurface } from './report-surface.js';
import { sharedReports } from './shared-reports.js';

/**
 * Everything a caller does with reports, whether this process keeps the report limit alone or
 * replicas share one queue in Redis: the choice is made once, where `buildReports` is called, and
 * listeners, workflow steps, promo lookups and watches never ask which.
 */
export interface Reports<W> {
  /** Follows a request (a person's, a workflow step's) to its surface, in the requester's turn. */
  follow(ask: ReportAsk, surface: ReportSurface<W>): Promise<void>;
  /**
   * The report for a caller that needs its figures (a promo code looked up in it), in
   * `requester`'s turn within the report limit; `fresh`: past the cache (the one at hand did not answer).
   */
  fetchFor(eventId: string, requester: string, options?: { fresh?: boolean | undefined }): Promise<EventReport>;
  /**
   * The freshest report at hand, at no report call (a watch's last check, the caches), read at most
   * one report window ago unless the caller accepts older (`maxAgeMs`) and shows when it was read.
   */
  atHand(eventId: string, options?: { maxAgeMs?: number }): Promise<ReportRead | undefined>;
  /** The report now for background work (a watch), only from a slot people leave; else undefined. */
  spare(eventId: string, options?: CacheReadOptions): Promise<EventReport | undefined>;
  /** Report requests waiting now (metrics). */
  waiting(): Promise<number> | number;
  /** With replicas, the store's lock that orders the edits of one report's message. */
  exclusive: KeyValueStore['exclusive'] | undefined;
}

export interface BuildReportsOptions<W> extends Omit<ReportFlowDeps, 'metrics'> {
  ticketing: TicketingClient;
  metrics?: Metrics | undefined;
  /** The replicas' shared queue and store; undefined in one process. */
  shared: { queue: SharedReportQueue<unknown>; store: KeyValueStore } | undefined;
  /** How old a report at hand may be by default: one report window. */
  windowMs: number;
  /** A watch's last check of the event, read when a report at hand is wanted (the watches exist later). */
  lastCheck: (eventId: string) => Promise<{ report: EventReport; checkedAt: number } | undefined>;
  /** Only to type `W` at the call. */
  surface?: W;
}

/** The report service for one process (the client's own queue) or for replicas (the shared one). */
export function buildReports<W>(options: BuildReportsOptions<W>): Reports<W> {
  const { shared, ticketing } = options;
  const base: ReportFlowDeps = {
    activity: options.activity,
    clock: options.clock,
    logger: options.logger,
    stopping: options.stopping,
    progressIntervalMs: options.progressIntervalMs,
  };
  const flow = shared
    ? sharedReports<W>({ ...base, queue: shared.queue as SharedReportQueue<never> })
    : inProcessReports<W>({ ...base, ticketing, metrics: options.metrics });
  const sources: ReportSource[] = [
    async (id) => {
      const check = await options.lastCheck(id);
      return check && { report: check.report, readAt: check.checkedAt };
    },
    (id, readAfterMs) => shared?.queue.cached(id, { readAfterMs }),
    (id, readAfterMs) => ticketing.cachedReport(id, { readAfterMs }),
  ];
  return {
    follow: (ask, surface) => flow.follow(ask, surface),
    fetchFor: (eventId, requester, fetchOptions = {}) =>
      awaitReport(
        flow,
        {
          store: shared?.store,
          cached: shared ? async (id) => (await shared.queue.cached(id))?.report : undefined,
          clock: options.clock,
          stopping: options.stopping,
        },
        { eventId, label: eventId, userId: requester, ...(fetchOptions.fresh ? { fresh: true } : {}) },
      ),
    atHand: (eventId, atHandOptions = {}) =>
      reportAtHand(sources, eventId, {
        now: options.clock.now(),
        maxAgeMs: atHandOptions.maxAgeMs ?? options.windowMs,
      }),
    spare: async (eventId, spareOptions = {}) =>
      shared
        ? shared.queue.spare(
            eventId,
            (signal) => ticketing.fetchReport(eventId, { priority: 'background', signal }),
            spareOptions,
          )
        : ticketing.spareReport(eventId, spareOptions),
    waiting: () => (shared ? shared.queue.waiting() : ticketing.reportsWaiting),
    exclusive: shared ? shared.store.exclusive.bind(shared.store) : undefined,
  };
}
