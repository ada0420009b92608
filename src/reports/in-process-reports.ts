import type { Metrics } from '../observability/metrics.js';
import type { TicketingClient } from '../ticketing/client.js';
import { REPORT_DEADLINE_MS } from '../ticketing/report-deadline.js';
import type { ReportProgress, ReportTicket } from '../ticketing/report-queue.js';
import type { ReportOutcome } from '../ticketing/shared-report-queue.js';
import { finishReport } from './finish-report.js';
import type { ReportFlow, ReportFlowDeps } from './report-flow.js';
import { FETCHING, type ReportStatus } from './report-status.js';
import type { ReportView } from './report-surface.js';

export interface InProcessReportsDeps extends ReportFlowDeps {
  ticketing: Pick<TicketingClient, 'requestReport'>;
  /** The time from request to answer is observed here (absent in some tests). */
  metrics?: Pick<Metrics, 'reportWait'> | undefined;
}

const statusOf = (progress: ReportProgress): ReportStatus =>
  progress.state === 'queued'
    ? { state: 'queued', position: progress.position, estimatedWaitMs: progress.estimatedWaitMs }
    : FETCHING;

/**
 * The client's own queue (one process): the report is queued, its place shown at once and edited
 * as the queue moves (at most one edit a `progressIntervalMs`, and only when the place changed),
 * then the report. At shutdown a report still queued is given up and its message says so; one
 * being fetched finishes.
 */
export function inProcessReports<W>(deps: InProcessReportsDeps): ReportFlow<W> {
  return {
    async follow(ask, surface) {
      let view: ReportView<W> | undefined;
      let lastPosition: number | undefined;
      let lastEdit = 0;
      const onProgress = (progress: ReportProgress) => {
        if (progress.state === 'done' || !view) return;
        const position = progress.state === 'fetching' ? 0 : progress.position;
        const now = deps.clock.now();
        if (position === lastPosition || now - lastEdit < deps.progressIntervalMs) return;
        lastPosition = position;
        lastEdit = now;
        void view.show(statusOf(progress));
      };
      let ticket: ReportTicket;
      try {
        ticket = deps.ticketing.requestReport(ask.eventId, {
          priority: 'interactive',
          requester: ask.userId,
          requesterKind: ask.requesterKind,
          label: ask.label,
          fresh: ask.fresh,
          signal: AbortSignal.timeout(REPORT_DEADLINE_MS),
          onProgress,
        });
      } catch (error) {
        // Refused at once (too many of the requester's reports wait, a malformed id): no call made.
        await finishReport(deps, await surface.open({ state: 'failed', error }), ask, { kind: 'failed', error });
        return;
      }
      const waited = deps.metrics?.reportWait.startTimer();
      const abandon = () => {
        if (ticket.progress().state === 'queued') ticket.cancel();
      };
      deps.stopping.addEventListener('abort', abandon, { once: true });
      if (deps.stopping.aborted) abandon();
      const first = ticket.progress();
      view = await surface.open(statusOf(first));
      lastPosition = first.state === 'queued' ? first.position : 0;
      lastEdit = deps.clock.now();

      let outcome: ReportOutcome;
      try {
        outcome = { kind: 'report', report: await ticket.result };
      } catch (error) {
        outcome = { kind: 'failed', error };
      } finally {
        deps.stopping.removeEventListener('abort', abandon);
        waited?.();
      }
      if (outcome.kind === 'failed' && deps.stopping.aborted) {
        await view.show({ state: 'abandoned' });
        return;
      }
      await finishReport(deps, view, ask, outcome);
    },
  };
}
