import type { App, webApi } from '@slack/bolt';
import type { Logger } from '../../../logger.js';
import type { Mrkdwn } from '../../../render/mrkdwn.js';
import type { SlackDeps } from '../../deps/slack-deps.js';
import {
  couldNotFinish,
  finishRun,
  restartingProblem,
  type StepOutcome,
  stepFailure,
} from '../../replies/finish-run.js';

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

/** The same, or that eventops was restarting when it was (the error is then the shutdown's). */
export function stepProblem(deps: SlackDeps, title: string, error: unknown): Mrkdwn {
  return deps.work.stopping.aborted ? restartingProblem(title) : couldNotFinish(title, error);
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
