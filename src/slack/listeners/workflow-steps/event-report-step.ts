import { eventLabel } from '../../../render/event-blocks.js';
import { stepFailure } from '../../replies/finish-run.js';
import { askForStepReport } from '../../reports/ask-for-report.js';
import {
  REPORT_STEP_TITLE,
  runFigures,
  runReportSurface,
  stepRequester,
  WORKFLOW_REQUESTER,
  withheldFromRun,
} from '../../reports/run-report.js';
import { conversationInput, eventForStep, isProblem, textInput, userContextId } from './step-inputs.js';
import type { WorkflowStep } from './workflow-step.js';

/**
 * "Get event report": the event's report, waited for in the same queue and limit as a person's
 * (with replicas, the shared one), completing the run with its figures from whichever replica
 * fetches it.
 */
export const eventReportStep: WorkflowStep = {
  callbackId: 'get_event_report',
  title: REPORT_STEP_TITLE,
  async run(deps, run) {
    const event = await eventForStep(deps, textInput(run.inputs, 'event'));
    if (isProblem(event)) return stepFailure(event.problem);
    // Figures only for a runner who may read them, in the conversation a later step posts them in:
    // refused before the report is asked for (and asked again as it comes).
    const who = {
      runBy: userContextId(run.inputs.run_by),
      postIn: conversationInput(run.inputs.post_in),
    };
    const figures = { audience: deps.audience, policy: deps.figuresPolicy };
    const gate = await runFigures(figures, who, undefined);
    if ('withheld' in gate) return stepFailure(withheldFromRun(gate.withheld));
    // The workflows one person runs share one limit of reports waiting (REPORT_STEPS_WAITING).
    const ask = {
      eventId: event.id,
      label: eventLabel(event),
      userId: who.runBy ? stepRequester(who.runBy) : WORKFLOW_REQUESTER,
      requesterKind: 'step' as const,
    };
    const where = { kind: 'workflow', executionId: run.executionId, ...who } as const;
    await askForStepReport(deps, ask, runReportSurface(run.client, ask, where, run.log, figures));
    return { kind: 'handed-off' };
  },
};
