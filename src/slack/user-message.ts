import { isTicketingError } from '../ticketing/errors.js';

/** The Slack Web API error code (`not_in_channel`, `channel_not_found`, ...) of a failed call, if any. */
export function slackErrorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('data' in error)) return undefined;
  const data = (error as { data?: { error?: unknown } }).data;
  return typeof data?.error === 'string' ? data.error : undefined;
}

const CHANNEL_PROBLEMS: Record<string, string> = {
  not_in_channel: "I'm not in this channel. Invite me with `/invite @eventops` and try again.",
  channel_not_found: "I can't see this channel (it may be private): invite me with `/invite @eventops`.",
  is_archived: 'This channel is archived, so I cannot post in it.',
  restricted_action: "This workspace doesn't let me post in this channel.",
};

/** What a Slack error code about a channel means for the person, if it is one of those. */
export function channelProblem(code: string): string | undefined {
  return CHANNEL_PROBLEMS[code];
}

/**
 * The one place an error becomes the sentence a Slack user reads: what happened and what to do,
 * never a stack, a secret or an internal id.
 */
export function userMessageFor(error: unknown): string {
  const slackCode = slackErrorCode(error);
  if (slackCode && CHANNEL_PROBLEMS[slackCode]) return CHANNEL_PROBLEMS[slackCode];
  if (!isTicketingError(error)) return 'Something went wrong on my side. It has been logged; please try again.';
  switch (error.code) {
    case 'invalid_input':
      return `${error.message}.`;
    case 'not_found':
      return "I couldn't find that in the Event Ticketing Service. Check the id (try `/events list`).";
    case 'unauthorized':
      return 'The Event Ticketing Service rejected eventops\u2019 API key. An admin needs to check TICKETING_API_KEY.';
    case 'rate_limited': {
      const seconds = 'retryAfterMs' in error ? Math.ceil(Number(error.retryAfterMs) / 1000) : 60;
      return `The Event Ticketing Service is rate-limiting us right now. Please try again in about ${seconds} s.`;
    }
    case 'cancelled':
      return 'The Event Ticketing Service is slow to answer right now (it may be busy). Please try again in a minute.';
    case 'unavailable':
      return "I couldn't reach the Event Ticketing Service. Please try again in a minute.";
    case 'invalid_request':
      return `The Event Ticketing Service refused the request: ${error.message}`;
    default:
      return 'The Event Ticketing Service answered in a way I did not understand. It has been logged.';
  }
}
