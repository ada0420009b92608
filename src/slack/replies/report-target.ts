import type { SharingDoubt } from '../../render/shared-channel-blocks.js';
import type { ReplyTarget } from '../../reports/awaited-report.js';
import type { ReportDelivery as Delivery } from '../../reports/report-surface.js';

/**
 * Where a report's message lives, in a form any replica can pick up (JSON): a channel message the
 * bot can edit, or the private answer (through the response URL while it lasts, else a DM).
 */
export type MessageTarget =
  /**
   * A notice in a channel (`ts`), edited to the report; `stream`: the reply under it that streams
   * the wait (`chat.startStream`), stopped when the report comes.
   */
  | { kind: 'channel'; channel: string; ts: string; stream?: string | undefined }
  | {
      kind: 'private';
      userId: string;
      responseUrl?: string | undefined;
      /** Kept out of a channel shared with another organization (or one Slack could not say of): the report offers to post it there. */
      sharedChannel?: SharingDoubt | undefined;
      /**
       * Post in channel was clicked: the wait shows privately, and the report is posted in
       * `channel` once it comes, if the figures rule then lets it (`once`, `owner`: the click's
       * claim, counted done only once it is posted).
       */
      postInChannel?: { channel: string; once: string; owner: string } | undefined;
    };

/**
 * A Workflow Builder step's run (`function_execution_id`): any replica can complete it, since
 * `functions.completeSuccess` and `completeError` take the app's bot token with no scope.
 */
export interface RunTarget {
  kind: 'workflow';
  executionId: string;
  /** Who runs the workflow (its `run_by` input) and where a later step posts the figures (`post_in`): the figures rule's reader. */
  runBy?: string | undefined;
  postIn?: string | undefined;
}

/** Where a report goes: a person's message, a workflow step's run, or a caller waiting for it. */
export type ReportTarget = MessageTarget | RunTarget | ReplyTarget;

/** What every replica needs to finish a report asked for on any of them (persisted in Redis as JSON). */
export type ReportDelivery = Delivery<ReportTarget>;
