import type { Metrics } from '../../observability/metrics.js';
import { parseId } from '../../ticketing/ids.js';
import { every } from '../../time/clock.js';
import { finishReport } from '../finish-report.js';
import type { ReportFlowDeps } from '../report-flow.js';
import { FETCHING, type ReportStatus } from '../report-status.js';
import type { ReportView } from '../report-surface.js';
import type { InProcessReportQueue, ReportTicket } from './in-process-report-queue.js';
import { REPORT_DEADLINE_MS } from './report-deadline.js';
import type { ReportOutcome, ReportProgress, ReportQueue } from './report-queue.js';
import { type ShownWait, WaitCountdown } from './wait-countdown.js';

export interface InProcessReportsDeps extends ReportFlowDeps {
  /** This process's own queue, which keeps the report limit alone. */
  queue: Pick<InProcessReportQueue, 'request' | 'cached' | 'spare' | 'waiting'>;
  /** The time from request to answer is observed here (absent in some tests). */
  metrics?: Pick<Metrics, 'reportWait'> | undefined;
}

/** Least time between two looks at a waiting report's countdown (tests shorten progressIntervalMs below it). */
const COUNTDOWN_LOOK_MS = 100;

const statusOf = (progress: ReportProgress): ReportStatus =>
  progress.state === 'queued'
    ? { state: 'queued', position: progress.position, estimatedWaitMs: progress.estimatedWaitMs }
    : FETCHING;

/**
 * The report queue of one process: the report is queued, its place shown at once and edited as
 * the queue moves (at most one edit a `progressIntervalMs`, and only when the place changed),
 * then the report. At shutdown a report still queued is given up and its message says so; one
 * being fetched finishes.
 */
export function inProcessReports<W>(deps: InProcessReportsDeps): ReportQueue<W> {
  const { queue } = deps;
  const countdown = new WaitCountdown(deps.clock);
  return {
    cached: async (eventId, options) => queue.cached(parseId('event', eventId), options),
    spare: async (eventId, options) => queue.spare(parseId('event', eventId), options),
    waiting: async () => queue.waiting,
    start: () => {},
    close: async () => {},
    async follow(ask, surface) {
      let view: ReportView<W> | undefined;
      let lastPosition: number | undefined;
      let lastEdit = 0;
      let shown: ShownWait = { at: 0, waitMs: 0 };
      const showProgress = (progress: ReportProgress, position: number, now: number) => {
        lastPosition = position;
        lastEdit = now;
        shown = { at: now, waitMs: progress.estimatedWaitMs };
        void view?.show(statusOf(progress));
      };
      const onProgress = (progress: ReportProgress) => {
        if (progress.state === 'done' || !view) return;
        const position = progress.state === 'fetching' ? 0 : progress.position;
        const now = deps.clock.now();
        if (position === lastPosition || now - lastEdit < deps.progressIntervalMs) return;
        showProgress(progress, position, now);
      };
      // In the same place, the wait shown counts down (`WaitCountdown` says when an edit is worth it).
      const countDown = () => {
        const progress = ticket.progress();
        if (!view || progress.state !== 'queued' || progress.position !== lastPosition) return;
        if (countdown.due(shown, progress.estimatedWaitMs)) showProgress(progress, progress.position, deps.clock.now());
      };
      let ticket: ReportTicket;
      try {
        ticket = queue.request(parseId('event', ask.eventId), {
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
      // The wait shown is the one read now, whenever its message is posted: the countdown runs from here.
      const firstAt = deps.clock.now();
      view = await surface.open(statusOf(first));
      lastPosition = first.state === 'queued' ? first.position : 0;
      lastEdit = firstAt;
      shown = { at: firstAt, waitMs: first.estimatedWaitMs };
      const ticking = every(deps.clock, Math.max(deps.progressIntervalMs, COUNTDOWN_LOOK_MS), countDown);

      let outcome: ReportOutcome;
      try {
        outcome = { kind: 'report', report: await ticket.result };
      } catch (error) {
        outcome = { kind: 'failed', error };
      } finally {
        ticking.stop();
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
