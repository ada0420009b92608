import type { webApi } from '@slack/bolt';
import type { Logger } from '../../logger.js';
import { escapeText, type Mrkdwn, md } from '../../render/mrkdwn.js';
import { isFinal, type ReportStatus } from '../../reports/report-status.js';
import type { ReportAsk, ReportSurface, ReportView } from '../../reports/report-surface.js';
import { couldNotFinish, finishRun, restartingProblem } from '../answers/finish-run.js';
import type { RunTarget } from '../answers/report-target.js';
import { reportOutputs } from './report-outputs.js';

/**
 * Who a report step asks as, for the queue's turns: every report step together is one requester,
 * so however many workflows run, a person's request waits behind at most one of theirs per round.
 */
export const WORKFLOW_REQUESTER = 'workflow-steps';

/** The step that asks for reports. */
export const REPORT_STEP_TITLE = 'Get event report';

/** Why a run's report will not come, for the workflow's author: each last state but the report. */
function runReportProblem(status: Exclude<ReportStatus, { state: 'report' | 'queued' | 'fetching' }>): Mrkdwn {
  switch (status.state) {
    case 'failed':
    case 'expired':
      return couldNotFinish(REPORT_STEP_TITLE, status.error);
    case 'lost':
      return md`${escapeText(REPORT_STEP_TITLE)} did not finish: the report was not fetched because Redis lost its place in the queue (emptied or evicted). Run the workflow again.`;
    case 'abandoned':
      return restartingProblem(REPORT_STEP_TITLE);
  }
}

/**
 * A step's run as the report flow sees it, on the replica Slack sent it to or the one that fetched
 * the report: progress shows nowhere (a run has no message), the report completes the run with its
 * outputs, any other last state fails it in words.
 */
export function runReportView(
  client: webApi.WebClient,
  ask: Pick<ReportAsk, 'eventId' | 'label'>,
  where: RunTarget,
  log: Logger,
): ReportView<RunTarget> {
  const runLog = log.child({ workflowStep: 'get_event_report', execution: where.executionId });
  return {
    where,
    kind: 'result',
    async show(status) {
      if (!isFinal(status)) return;
      // The label is the event's name, or `Event <id>` for one without: what the outputs name it.
      const event = { id: ask.eventId, name: ask.label };
      await finishRun(
        client,
        where.executionId,
        status.state === 'report'
          ? { kind: 'complete', outputs: reportOutputs(event, status.report) }
          : { kind: 'fail', error: runReportProblem(status) },
        runLog,
      );
    },
  };
}

/** The run that asked, opened where Slack sent it; no lock, as a run has no edits to order. */
export function runReportSurface(
  client: webApi.WebClient,
  ask: Pick<ReportAsk, 'eventId' | 'label'>,
  where: RunTarget,
  log: Logger,
): ReportSurface<RunTarget> {
  return {
    open: async () => runReportView(client, ask, where, log),
    exclusive: (_key, work) => work(),
  };
}
