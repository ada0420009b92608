import { clip, joinMrkdwn, type Mrkdwn, md } from '../../render/mrkdwn.js';
import { isStoreError } from '../../store/key-value-store.js';
import { isTicketingError, TooManyReportsWaitingError } from '../../ticketing/errors.js';
import { channelProblem, slackErrorCode } from './slack-errors.js';

/** A sentence from an error's own message (which may quote the service): escaped, one line, ending in a stop. */
function sentence(text: string): Mrkdwn {
  const line = text.replace(/\s+/g, ' ').trim();
  return clip(/[.!?]$/.test(line) ? line : `${line}.`, 400);
}

/** The reports that wait, as a person knows them: each event's name (escaped), else its id. */
function waitingList(error: TooManyReportsWaitingError): Mrkdwn {
  return joinMrkdwn(
    error.waiting.map((report) => clip(report.label ?? report.eventId, 80)),
    md`, `,
  );
}

/** A report refused because too many wait already: whose, which, and what to do. */
function tooManyWaiting(error: TooManyReportsWaitingError): Mrkdwn {
  if (error.requesterKind === 'step') {
    const steps =
      error.limit === 1
        ? md`1 report step of workflows run by this person is`
        : md`${error.limit} report steps of workflows run by this person are`;
    return md`${steps} already waiting for a report (the most one person's workflows may have, so that no workflow takes every slot), so this one was not queued. Run it again once some have finished.`;
  }
  return md`You already have ${error.limit} reports waiting: ${waitingList(error)}; wait for one to arrive.`;
}

/**
 * The one place an error becomes the sentence a Slack user reads: what happened and what to do,
 * never a stack, a secret or an internal id. Text from outside (the service's error bodies) is
 * escaped here, so it can never become a mention or a link.
 */
export function userMessageFor(error: unknown): Mrkdwn {
  const slackCode = slackErrorCode(error);
  const refusal = slackCode === undefined ? undefined : channelProblem(slackCode);
  if (refusal) return refusal;
  if (isStoreError(error)) {
    return md`I couldn't reach my own storage, so nothing was saved or changed. It has been logged; please try again in a minute.`;
  }
  if (!isTicketingError(error)) return md`Something went wrong on my side. It has been logged; please try again.`;
  switch (error.code) {
    case 'invalid_input':
      return sentence(error.message);
    case 'not_found':
      return md`I couldn't find that in the Event Ticketing Service. Check the id (try \`/events list\`).`;
    case 'unauthorized':
      return md`The Event Ticketing Service rejected eventops\u2019 API key. An admin needs to check TICKETING_API_KEY.`;
    case 'rate_limited': {
      const seconds = 'retryAfterMs' in error ? Math.ceil(Number(error.retryAfterMs) / 1000) : 60;
      return md`The Event Ticketing Service is rate-limiting us right now. Please try again in about ${seconds} s.`;
    }
    case 'cancelled':
      return md`The Event Ticketing Service is slow to answer right now (it may be busy). Please try again in a minute.`;
    case 'unavailable':
      return md`I couldn't reach the Event Ticketing Service. Please try again in a minute.`;
    case 'outcome_unknown':
      return md`The Event Ticketing Service never answered, so I can't tell whether it was applied.`;
    case 'invalid_request':
      return md`The Event Ticketing Service refused the request: ${sentence(error.message)}`;
    case 'too_many_waiting':
      if (error instanceof TooManyReportsWaitingError) return tooManyWaiting(error);
      return sentence(error.message);
    default:
      return md`The Event Ticketing Service answered in a way I did not understand. It has been logged.`;
  }
}

/** What a person asked for did not happen because eventops was shutting down: `what` completes "so ...". */
export function restartingMessage(what: Mrkdwn): Mrkdwn {
  return md`eventops was restarting, so ${what}. Try again in a minute.`;
}
