import type { webApi } from '@slack/bolt';
import type { Logger } from '../../logger.js';
import { escapeText, type Mrkdwn, md } from '../../render/mrkdwn.js';
import { slackErrorCode } from './slack-errors.js';
import { userMessageFor } from './user-message.js';

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

/** Why a step could not finish, from an error, in the one place errors become words. */
export const couldNotFinish = (title: string, error: unknown): Mrkdwn =>
  md`${escapeText(title)} could not finish: ${userMessageFor(error)}`;

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
