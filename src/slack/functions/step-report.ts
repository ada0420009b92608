import type { webApi } from '@slack/bolt';
import type { Logger } from '../../logger.js';
import { escapeText, type Mrkdwn, md } from '../../render/mrkdwn.js';
import { isFinal, type ReportStatus } from '../../reports/report-status.js';
import type { ReportAsk, ReportSurface, ReportView } from '../../reports/report-surface.js';
import { REPORT_DEADLINE_MS } from '../../ticketing/report-deadline.js';
import type { EventReport } from '../../ticketing/schemas.js';
import type { SlackDeps } from '../deps.js';
import { userMessageFor } from '../user-message.js';
import { reportOutputs } from './report-outputs.js';
import { finishRun, restartingProblem } from './workflow-step.js';

/**
 * Who a report step asks as, for the queue's turns: every report step together is one requester,
 * so however many workflows run, a person's request waits behind at most one of theirs per round.
 */
export const WORKFLOW_REQUESTER = 'workflow-steps';

/** The step whose report this is. */
export const STEP_TITLE = 'Get event report';

/**
 * Where a report a workflow step asked for goes: the step's run, which any replica can complete
 * (`functions.completeSuccess` and `completeError` take the app's bot token, no scope needed), so
 * the report waits in the shared queue like a person's and whichever replica fetches it finishes
 * the run. JSON, as every report's place is: it travels with the request in Redis.
 */
export interface StepReportTarget {
  kind: 'workflow';
  /** `function_execution_id`: the run to complete. */
  executionId: string;
  /** The event's name when it has one, for the step's outputs. */
  eventName?: string | undefined;
}

/** Why a run's report will not come, for the workflow's author: the last states other than the report. */
function stepReportProblem(status: Exclude<ReportStatus, { state: 'report' | 'queued' | 'fetching' }>): Mrkdwn {
  switch (status.state) {
    case 'failed':
    case 'expired':
      return md`${escapeText(STEP_TITLE)} could not finish: ${userMessageFor(status.error)}`;
    case 'lost':
      return md`${escapeText(STEP_TITLE)} did not finish: the report was not fetched because Redis lost its place in the queue (emptied or evicted). Run the workflow again.`;
    case 'abandoned':
      return restartingProblem(STEP_TITLE);
  }
}

/**
 * A report's run as the report flow sees it: progress shows nowhere (a run has no message), the
 * report completes it with its outputs, any other last state fails it in words. A run is not a
 * person: nothing is added to anyone's App Home.
 */
export function stepReportView(
  client: webApi.WebClient,
  ask: Pick<ReportAsk, 'eventId'>,
  where: StepReportTarget,
  log: Logger,
): ReportView<StepReportTarget> {
  return {
    where,
    recordsActivity: false,
    async show(status) {
      if (!isFinal(status)) return;
      const event = { id: ask.eventId, name: where.eventName };
      await finishRun(
        client,
        where.executionId,
        status.state === 'report'
          ? { kind: 'complete', outputs: reportOutputs(event, status.report) }
          : { kind: 'fail', error: stepReportProblem(status) },
        log,
      );
    },
  };
}

/** The run that asked, opened on the replica Slack sent it to; `exclusive` is the report flow's lock. */
export function stepReportSurface(
  client: webApi.WebClient,
  ask: Pick<ReportAsk, 'eventId'>,
  where: StepReportTarget,
  log: Logger,
  exclusive: ReportSurface<StepReportTarget>['exclusive'],
): ReportSurface<StepReportTarget> {
  return {
    open: async () => stepReportView(client, ask, where, log),
    exclusive,
  };
}

/**
 * One process: the report from the client's own queue, in `requester`'s turn, within the report
 * limit and its deadline, as a person's (the promo step looks a code up in it). At shutdown a
 * request still queued is given up; one being fetched finishes.
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
