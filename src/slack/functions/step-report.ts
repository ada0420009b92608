import { describeLimit } from '../../render/limit-wording.js';
import { type Mrkdwn, md } from '../../render/mrkdwn.js';
import { REPORT_DEADLINE_MS } from '../../ticketing/report-deadline.js';
import type { EventReport } from '../../ticketing/schemas.js';
import type { SlackDeps } from '../deps.js';

/**
 * Who a report step asks as, for the queue's turns: every report step together is one requester,
 * so however many workflows run, a person's request waits behind at most one of theirs per round.
 */
export const WORKFLOW_REQUESTER = 'workflow-steps';

/**
 * One process: the report from the client's own queue, in `requester`'s turn, within the report
 * limit and its deadline, as a person's. At shutdown a request still queued is given up (the run
 * is told to try again); one being fetched finishes.
 */
export async function queuedReport(deps: SlackDeps, eventId: string, requester: string): Promise<EventReport> {
  const ticket = deps.ticketing.requestReport(eventId, {
    priority: 'interactive',
    requester,
    signal: AbortSignal.timeout(REPORT_DEADLINE_MS),
  });
  const abandon = () => {
    if (ticket.progress().state === 'queued') ticket.cancel();
  };
  deps.work.stopping.addEventListener('abort', abandon, { once: true });
  if (deps.work.stopping.aborted) abandon();
  try {
    return await ticket.result;
  } finally {
    deps.work.stopping.removeEventListener('abort', abandon);
  }
}

/**
 * The report for the Get event report step. One process: it waits in the client's queue like
 * anyone's (`queuedReport`). With replicas the shared queue answers a request by editing the
 * Slack message of the person who asked, from whichever replica fetched it; a step has no
 * message, so it takes what needs no place in that queue: a report any replica fetched lately
 * (the shared cache), else one fetched at once when nobody waits and the shared limit has a slot
 * free (as a watch's check is). Otherwise the run fails, saying so; the limit is never bypassed.
 */
export async function reportForStep(
  deps: SlackDeps,
  eventId: string,
): Promise<{ report: EventReport } | { problem: Mrkdwn }> {
  const shared = deps.sharedReports;
  if (!shared) return { report: await queuedReport(deps, eventId, WORKFLOW_REQUESTER) };
  const cached = await shared.queue.cached(eventId);
  if (cached) return { report: cached };
  const spare = await shared.queue.spare(eventId, (signal) =>
    deps.ticketing.fetchReport(eventId, { priority: 'interactive', signal }),
  );
  if (spare) return { report: spare };
  return {
    problem: md`No report slot is free right now: the report API allows ${describeLimit(deps.reportLimit)}, people asking in Slack come first, and with several eventops replicas a workflow step takes only a free slot, it does not queue. Run the workflow again in a minute; a report of this event fetched lately (\`/events report\`) is used at once.`,
  };
}
