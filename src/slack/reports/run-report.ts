import type { webApi } from '@slack/bolt';
import { type FiguresPolicy, type Shown, showFigures, type Withheld } from '../../figures/may-show-figures.js';
import type { Logger } from '../../logger.js';
import type { Mrkdwn } from '../../render/mrkdwn.js';
import { REPORT_STEP_TITLE, reportStepLost, withheldFromReportStep } from '../../render/workflow-step-texts.js';
import { isFinal, type ReportStatus } from '../../reports/report-status.js';
import type { ReportAsk, ReportSurface, ReportView } from '../../reports/report-surface.js';
import type { ConversationAudience } from '../deps/conversation-audience.js';
import { conversationReader } from '../deps/figures-reader.js';
import { couldNotFinish, finishRun, restartingProblem } from '../replies/finish-run.js';
import type { RunTarget } from '../replies/report-target.js';
import { reportOutputs } from './report-outputs.js';

/**
 * Who a report step asks as, for the queue's turns and its waiting limit: the workflows one person
 * runs are one requester (`workflow-steps:<run_by>`; Slack names no workflow, only each run), so
 * each gets its own share of REPORT_STEPS_WAITING and its own turn, and one workflow run in a
 * loop neither fills every step's slots nor puts a person's request behind more than one of its
 * reports a round.
 */
export const WORKFLOW_REQUESTER = 'workflow-steps';

/** The requester the report steps of workflows run by `runBy` ask as. */
export const stepRequester = (runBy: string): string => `${WORKFLOW_REQUESTER}:${runBy}`;

/** The step's title, where its errors name it (worded in render/). */
export { REPORT_STEP_TITLE };

/** The figures rule's facts for a run: who runs it, and who reads where a later step posts. */
export interface RunFigures {
  audience: Pick<ConversationAudience, 'of' | 'person'>;
  policy?: FiguresPolicy | undefined;
}

/**
 * A run's figures through the figures rule: for the person running the workflow, in the
 * conversation its later steps post them in. A run that names neither is not known, so not allowed.
 */
export async function runFigures<T>(
  figures: RunFigures,
  where: Pick<RunTarget, 'runBy' | 'postIn'>,
  value: T,
): Promise<{ shown: Shown<T> } | { withheld: Withheld }> {
  if (!where.runBy || !where.postIn)
    return {
      withheld: {
        why: 'not-known',
        about: where.runBy ? 'conversation' : 'person',
        reason: where.runBy ? 'no post_in input' : 'no run_by input',
      },
    };
  return showFigures(value, await conversationReader(figures.audience, where.postIn, where.runBy), figures.policy);
}

/** Why a run gets no figures, for the workflow's author (render's words). */
export const withheldFromRun = withheldFromReportStep;

/** Why a run's report will not come, for the workflow's author: each last state but the report. */
function runReportProblem(status: Exclude<ReportStatus, { state: 'report' | 'queued' | 'fetching' }>): Mrkdwn {
  switch (status.state) {
    case 'failed':
    case 'expired':
      return couldNotFinish(REPORT_STEP_TITLE, status.error);
    case 'lost':
      return reportStepLost();
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
  figures: RunFigures,
): ReportView<RunTarget> {
  const runLog = log.child({ workflowStep: 'get_event_report', execution: where.executionId });
  return {
    where,
    kind: 'result',
    async show(status) {
      if (!isFinal(status)) return;
      // The label is the event's name, or `Event <id>` for one without: what the outputs name it.
      const event = { id: ask.eventId, name: ask.label };
      let finish: Parameters<typeof finishRun>[2];
      if (status.state === 'report') {
        // Asked again as the report comes: the conversation may have been shared while it waited.
        const gate = await runFigures(figures, where, status.report);
        finish =
          'shown' in gate
            ? { kind: 'complete', outputs: reportOutputs(event, gate.shown) }
            : { kind: 'fail', error: withheldFromRun(gate.withheld) };
      } else finish = { kind: 'fail', error: runReportProblem(status) };
      await finishRun(client, where.executionId, finish, runLog);
    },
  };
}

/** The run that asked, opened where Slack sent it; no lock, as a run has no edits to order. */
export function runReportSurface(
  client: webApi.WebClient,
  ask: Pick<ReportAsk, 'eventId' | 'label'>,
  where: RunTarget,
  log: Logger,
  figures: RunFigures,
): ReportSurface<RunTarget> {
  return {
    open: async () => runReportView(client, ask, where, log, figures),
    exclusive: (_key, work) => work(),
  };
}
