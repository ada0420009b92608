import { randomUUID } from 'node:crypto';
import type { EventReport } from '../../ticketing/schemas.js';
import { sleep } from '../../time/clock.js';
import { finishReport } from '../finish-report.js';
import type { ReportFlowDeps } from '../report-flow.js';
import { FETCHING, type ReportStatus } from '../report-status.js';
import type { ReportDelivery, ReportView } from '../report-surface.js';
import { REPORT_DEADLINE_MS } from './report-deadline.js';
import type { ReportQueue } from './report-queue.js';
import type { SharedReportQueue } from './shared-report-queue.js';
import type { ReportHold } from './shared-report-waiting.js';
import { type ShownWait, WaitCountdown } from './wait-countdown.js';

export interface SharedReportsDeps<W> extends ReportFlowDeps {
  /** The report queue every replica shares (Redis); whichever replica fetches a report delivers it. */
  queue: Pick<
    SharedReportQueue<ReportDelivery<W>>,
    'cached' | 'waiting' | 'reserve' | 'release' | 'submit' | 'progress' | 'spare' | 'start' | 'close'
  >;
  /** A watch's report, fetched in a spare slot as background work. */
  fetchSpare(eventId: string, signal: AbortSignal): Promise<EventReport>;
}

/**
 * The report queue replicas share: the request is persisted in Redis before the person is told its place, then
 * the place is kept up to date while it waits. Each look and edit holds the message's lock, as the
 * final answer does, so a late progress edit never covers the report another replica has just posted.
 */
export function sharedReports<W>(deps: SharedReportsDeps<W>): ReportQueue<W> {
  const { queue } = deps;
  const countdown = new WaitCountdown(deps.clock);
  return {
    cached: (eventId, options) => queue.cached(eventId, options),
    spare: (eventId, options) => queue.spare(eventId, (signal) => deps.fetchSpare(eventId, signal), options),
    waiting: () => queue.waiting(),
    start: () => queue.start(),
    close: () => queue.close(),
    async follow(ask, surface) {
      const log = deps.logger.child({ command: 'report', eventId: ask.eventId });
      const who = {
        eventId: ask.eventId,
        label: ask.label,
        userId: ask.userId,
        ...(ask.cancelled ? { cancelled: ask.cancelled } : {}),
      };
      const cached = ask.fresh ? undefined : await queue.cached(ask.eventId);
      if (cached) {
        const view = await surface.open(FETCHING);
        await finishReport(deps, view, who, { kind: 'report', report: cached.report });
        return;
      }
      // Its place among the reports its requester may have waiting, before anything is shown: one
      // over the limit is refused at once, with no call made.
      let hold: ReportHold;
      try {
        hold = await queue.reserve(ask.eventId, ask.userId, { requesterKind: ask.requesterKind, label: ask.label });
      } catch (error) {
        log.warn('The report request was refused', { error });
        await finishReport(deps, await surface.open({ state: 'failed', error }), who, { kind: 'failed', error });
        return;
      }
      const ahead = await queue.waiting().catch(() => 0);
      const guess: ReportStatus = { state: 'queued', position: ahead + 1, estimatedWaitMs: 0 };
      let view: ReportView<W>;
      try {
        view = await surface.open(guess);
      } catch (error) {
        await queue.release(hold).catch(() => undefined);
        throw error;
      }
      const delivery: ReportDelivery<W> = { ...who, where: view.where, messageKey: randomUUID() };
      let jobId: string;
      try {
        // In the person's turn: one person's ten requests do not put another's one behind all ten.
        jobId = await queue.submit(ask.eventId, delivery, ask.userId, { hold, fresh: ask.fresh });
      } catch (error) {
        log.warn('Could not queue the report', { error });
        await view.show({ state: 'failed', error });
        return;
      }
      // This replica follows the place while it waits, and the request until it is answered (first
      // at once: the guess had no wait in it); shutdown stops following, not the request. One that
      // waited past its deadline, or that Redis lost, ends here with the person told; Redis out for
      // a while (perhaps restarting empty) only pauses the following, up to the deadline.
      let shownPosition = guess.position;
      let shown: ShownWait = { at: deps.clock.now(), waitMs: 0 };
      const giveUpAt = deps.clock.now() + REPORT_DEADLINE_MS;
      let failing = false;
      for (let first = true; !deps.stopping.aborted; first = false) {
        if (!first) await sleep(deps.progressIntervalMs, deps.stopping).catch(() => undefined);
        if (deps.stopping.aborted) return;
        const keepGoing = await surface
          .exclusive(delivery.messageKey, async () => {
            const progress = await queue.progress(jobId);
            if (progress.state === 'expired') {
              log.warn('The report request failed', { error: progress.error });
              await view.show({ state: 'expired', error: progress.error });
              return false;
            }
            if (progress.state === 'lost') {
              log.warn('A queued report was lost from Redis (flushed or evicted)', { jobId });
              await view.show({ state: 'lost' });
              return false;
            }
            // Being fetched is not the last word here: a job handed to a worker goes back to the
            // queue when it is not its turn, no slot is free or the service answers 429
            // (`SharedReportQueue.#sendBack`). A follower that stopped then would never see it
            // again, and one Redis lost afterwards (a flush) would leave its person at the last
            // place shown for good. So it keeps looking, showing nothing, until the job is answered
            // (`done`: the replica that fetched it shows the outcome), lost or expired.
            if (progress.state === 'fetching') return true;
            if (progress.state !== 'queued') return false;
            const moved = progress.position !== shownPosition;
            // In the same place, the wait shown counts down (`WaitCountdown` says when an edit is worth it).
            if (moved || (first && progress.estimatedWaitMs > 0) || countdown.due(shown, progress.estimatedWaitMs)) {
              shownPosition = progress.position;
              shown = { at: deps.clock.now(), waitMs: progress.estimatedWaitMs };
              await view.show({
                state: 'queued',
                position: progress.position,
                estimatedWaitMs: progress.estimatedWaitMs,
              });
            }
            return true;
          })
          .then(
            (keep) => {
              failing = false;
              return keep;
            },
            async (error: unknown) => {
              if (!failing) log.warn('Could not follow the report queue; trying again each round', { error });
              failing = true;
              if (deps.clock.now() < giveUpAt) return true;
              await view.show({ state: 'failed', error });
              return false;
            },
          );
        if (!keepGoing) return;
      }
    },
  };
}
