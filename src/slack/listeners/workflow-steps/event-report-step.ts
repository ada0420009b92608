import { eventLabel } from '../../../render/event-blocks.js';
import { stepFailure } from '../../answers/finish-run.js';
import { askForStepReport } from '../../reports/ask-for-report.js';
import { REPORT_STEP_TITLE, runReportSurface, WORKFLOW_REQUESTER } from '../../reports/run-report.js';
import { eventForStep, isProblem, textInput } from './step-inputs.js';
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
    // Every report step counts against one limit of reports waiting (REPORT_STEPS_WAITING).
    const ask = {
      eventId: event.id,
      label: eventLabel(event),
      userId: WORKFLOW_REQUESTER,
      requesterKind: 'step' as const,
    };
    const where = { kind: 'workflow', executionId: run.executionId } as const;
    await askForStepReport(deps, ask, runReportSurface(run.client, ask, where, run.log));
    return { kind: 'handed-off' };
  },
};
