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
 * author can act on, `none` (a run Slack delivered again: the first delivery finishes it), or
 * `handed-off` (the report flow finishes it, on whichever replica fetches the report).
 */
export type StepOutcome =
  | { kind: 'complete'; outputs: StepOutputs }
  | { kind: 'fail'; error: Mrkdwn }
  | { kind: 'none' }
  | { kind: 'handed-off' };

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
export const couldNotFinish = (title: string, error: unknown): Mrkdwn =>
  md`${escapeText(title)} could not finish: ${userMessageFor(error)}`;

/** The same, or that eventops was restarting when it was (the error is then the shutdown's). */
export function stepProblem(deps: SlackDeps, title: string, error: unknown): Mrkdwn {
  return deps.work.stopping.aborted ? restartingProblem(title) : couldNotFinish(title, error);
}

/** A run this replica could not finish because it was shutting down. */
export const restartingProblem = (title: string) =>
  md`eventops was restarting, so ${escapeText(title)} did not finish. Run the workflow again in a minute.`;

/**
 * Tells Slack how a run ended (`functions.completeSuccess` or `completeError`), with `client`'s
 * token: the run's workflow token on the replica Slack sent it to, the app's bot token on another.
 * A refusal is logged: Slack ends a run it never hears about on its own timeout.
 */
export async function finishRun(
  client: webApi.WebClient,
  executionId: string,
  outcome: Extract<StepOutcome, { kind: 'complete' | 'fail' }>,
  log: Logger,
): Promise<void> {
  log.info('Workflow step finished', { outcome: outcome.kind });
  try {
    if (outcome.kind === 'complete') {
      await client.functions.completeSuccess({ function_execution_id: executionId, outputs: outcome.outputs });
    } else {
      await client.functions.completeError({ function_execution_id: executionId, error: outcome.error });
    }
  } catch (error) {
    log.warn('Slack did not take the workflow step result', { slackError: slackErrorCode(error), error });
  }
}

/**
 * Registers a step with Bolt's `app.function` (acknowledged at once, Bolt's default): its handler's
 * outcome becomes `complete` or `fail`, and an error it throws becomes a `fail` in words, so a run
 * never stays "in progress" in Slack.
 */
export function registerStep(app: App, deps: SlackDeps, step: WorkflowStep): void {
  app.function(step.callbackId, async ({ inputs, event, client }) => {
    const executionId = event.function_execution_id;
    const log = deps.logger.child({ workflowStep: step.callbackId, execution: executionId });
    let outcome: StepOutcome;
    if (!(await deps.runs.firstDelivery(executionId))) {
      outcome = { kind: 'none' };
    } else if (deps.work.stopping.aborted) {
      outcome = stepFailure(restartingProblem(step.title));
    } else {
      try {
        outcome = await step.run(deps, { inputs: inputs ?? {}, client, executionId, log });
      } catch (error) {
        log.warn('A workflow step failed', { error });
        outcome = stepFailure(stepProblem(deps, step.title, error));
      }
    }
    if (outcome.kind === 'complete' || outcome.kind === 'fail') await finishRun(client, executionId, outcome, log);
    else if (outcome.kind === 'none') log.info('Workflow step finished', { outcome: outcome.kind });
  });
}
