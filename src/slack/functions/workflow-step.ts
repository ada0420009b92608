import type { App, webApi } from '@slack/bolt';
import type { Logger } from '../../logger.js';
import { escapeText, type Mrkdwn, md } from '../../render/mrkdwn.js';
import type { SlackDeps } from '../deps.js';
import { slackErrorCode } from '../slack-errors.js';
import { userMessageFor } from '../user-message.js';

/** A step's outputs, named as the manifest's `output_parameters` name them. */
export type StepOutputs = Record<string, string | number>;

/**
 * How one run of a step ends: `complete` with its outputs, `fail` with a sentence the workflow's
 * author can act on, or `none` (a run Slack delivered again: the first delivery finishes it).
 */
export type StepOutcome =
  | { kind: 'complete'; outputs: StepOutputs }
  | { kind: 'fail'; error: Mrkdwn }
  | { kind: 'none' };

export const stepFailure = (error: Mrkdwn): StepOutcome => ({ kind: 'fail', error });

/** One run of a step, as its handler sees it. */
export interface StepRun {
  /** The run's inputs: outside input, checked by the handler. */
  inputs: Readonly<Record<string, unknown>>;
  /** Bolt's client, carrying the run's own short-lived workflow token. */
  client: webApi.WebClient;
  /** `function_execution_id`: this run of this step. */
  executionId: string;
  log: Logger;
}

/** A custom step: its `callback_id` (the manifest's `functions` key), its title, and what it does. */
export interface WorkflowStep {
  callbackId: string;
  title: string;
  run(deps: SlackDeps, run: StepRun): Promise<StepOutcome>;
}

/** Why a step could not finish, from an error, in the one place errors become words. */
export function stepProblem(deps: SlackDeps, title: string, error: unknown): Mrkdwn {
  if (deps.work.stopping.aborted) return restarting(title);
  return md`${escapeText(title)} could not finish: ${userMessageFor(error)}`;
}

const restarting = (title: string) =>
  md`eventops was restarting, so ${escapeText(title)} did not finish. Run the workflow again in a minute.`;

/**
 * Registers a step with Bolt's `app.function` (acknowledged at once, Bolt's default): its handler's
 * outcome becomes `complete` or `fail`, and an error it throws becomes a `fail` in words, so a run
 * never stays "in progress" in Slack.
 */
export function registerStep(app: App, deps: SlackDeps, step: WorkflowStep): void {
  app.function(step.callbackId, async ({ inputs, event, client, complete, fail }) => {
    const executionId = event.function_execution_id;
    const log = deps.logger.child({ workflowStep: step.callbackId, execution: executionId });
    let outcome: StepOutcome;
    if (deps.work.stopping.aborted) {
      outcome = stepFailure(restarting(step.title));
    } else {
      try {
        outcome = await step.run(deps, { inputs: inputs ?? {}, client, executionId, log });
      } catch (error) {
        log.warn('A workflow step failed', { error });
        outcome = stepFailure(stepProblem(deps, step.title, error));
      }
    }
    log.info('Workflow step finished', { outcome: outcome.kind });
    try {
      if (outcome.kind === 'complete') await complete({ outputs: outcome.outputs });
      if (outcome.kind === 'fail') await fail({ error: outcome.error });
    } catch (error) {
      // Nothing more to do: Slack ends a run it never hears about on its own timeout.
      log.warn('Slack did not take the workflow step result', { slackError: slackErrorCode(error), error });
    }
  });
}
