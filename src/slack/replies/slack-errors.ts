import type { Metrics } from '../../observability/metrics.js';
import { type Mrkdwn, md } from '../../render/mrkdwn.js';

/** The Slack Web API error code (`not_in_channel`, `channel_not_found`, ...) of a failed call, if any. */
export function slackErrorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('data' in error)) return undefined;
  const data = (error as { data?: { error?: unknown } }).data;
  return typeof data?.error === 'string' ? data.error : undefined;
}

/**
 * Slack errors meaning a channel will keep refusing the bot's posts, with what to tell a person:
 * the one list, used by commands and by digests (which pause instead of retrying).
 */
const CHANNEL_REFUSALS: Record<string, Mrkdwn> = {
  not_in_channel: md`I'm not in this channel. Invite me with \`/invite @eventops\` and try again.`,
  channel_not_found: md`I can't see this channel (it may be private): invite me with \`/invite @eventops\`.`,
  is_archived: md`This channel is archived, so I cannot post in it.`,
  restricted_action: md`This workspace doesn't let me post in this channel.`,
  account_inactive: md`My Slack account is inactive in this workspace, so I cannot post.`,
  cannot_reply_to_message: md`This channel doesn't accept my messages.`,
};

/**
 * Slack errors meaning a person cannot get the bot's DMs any more: they left the workspace or
 * were deactivated (`conversations.open` says `user_not_found`, `user_disabled`; a post,
 * `account_inactive`), or the id is a bot's. A personal digest pauses on them.
 */
const PERSON_REFUSALS = new Set(['user_not_found', 'user_disabled', 'account_inactive', 'cannot_dm_bot']);

/** The code of a failure that means "this channel refuses posts", if the error is one. */
export function channelRefusal(error: unknown): string | undefined {
  const code = slackErrorCode(error);
  return code !== undefined && Object.hasOwn(CHANNEL_REFUSALS, code) ? code : undefined;
}

/** What a channel refusal code means for the person. */
export function channelProblem(code: string): Mrkdwn | undefined {
  return Object.hasOwn(CHANNEL_REFUSALS, code) ? CHANNEL_REFUSALS[code] : undefined;
}

/** The code of a failure that means "this person cannot get DMs" (or the DM refuses posts), if the error is one. */
export function personRefusal(error: unknown): string | undefined {
  const code = slackErrorCode(error);
  return code !== undefined && PERSON_REFUSALS.has(code) ? code : channelRefusal(error);
}

/** Counts a failed Web API call in the metrics, by what was attempted and Slack's error code. */
export function countSlackError(metrics: Metrics | undefined, call: string, error: unknown): void {
  metrics?.slackErrors.inc({ call, error: slackErrorCode(error) ?? 'transport' });
}
