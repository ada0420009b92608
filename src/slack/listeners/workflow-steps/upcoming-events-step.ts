import { searchTextProblem } from '../../../catalog/event-search.js';
import { upcomingEvents } from '../../../catalog/find-events.js';
import { MAX_DIGEST_DAYS } from '../../../digest/subscription.js';
import { eventTitle } from '../../../render/event-blocks.js';
import { describeEventTime } from '../../../render/event-time.js';
import { clip, code, joinMrkdwn, type Mrkdwn, md } from '../../../render/mrkdwn.js';
import type { TicketingEvent } from '../../../ticketing/schemas.js';
import { stepFailure } from '../../answers/finish-run.js';
import { asOfUtc, isProblem, textInput, wholeNumberInput } from './step-inputs.js';
import type { WorkflowStep } from './workflow-step.js';

const DAY_MS = 24 * 60 * 60_000;
/** Days when the workflow gives none: a week, as `/events list week`. */
const DEFAULT_DAYS = 7;
/** Most events the text lists; the count output still counts them all. */
const MAX_LISTED = 25;

/** One event as a line: its name, when in its own zone, where, and its id. */
const eventLine = (event: TicketingEvent): Mrkdwn => {
  const venue = event.venue ? md` · ${clip(event.venue, 100)}` : md``;
  return md`• *${eventTitle(event, 150)}* · ${clip(describeEventTime(event), 200)}${venue} · ${code(event.id)}`;
};

/** The list as text for a message: Slack mrkdwn, with the service's text escaped. */
export function upcomingText(input: {
  events: readonly TicketingEvent[];
  days: number;
  words: string | undefined;
  asOf: number;
}): Mrkdwn {
  const window = input.days === 1 ? md`the next day` : md`the next ${input.days} days`;
  const matching = input.words ? md` matching "${clip(input.words, 60)}"` : md``;
  const asOf = md`Event list as of ${asOfUtc(input.asOf)}.`;
  if (input.events.length === 0) return md`No upcoming events in ${window}${matching}. ${asOf}`;
  const lines = [md`*Upcoming events in ${window}${matching}* (${input.events.length})`];
  lines.push(...input.events.slice(0, MAX_LISTED).map(eventLine));
  if (input.events.length > MAX_LISTED) lines.push(md`...and ${input.events.length - MAX_LISTED} more`);
  lines.push(asOf);
  return joinMrkdwn(lines);
}

/**
 * "Upcoming events": what `/events list` shows (events not yet ended, soonest first, narrowed by
 * words of their name), for the next `days` days counted from now (a workflow has no reader, so
 * no zone to cut calendar days in), as text.
 */
export const upcomingEventsStep: WorkflowStep = {
  callbackId: 'upcoming_events',
  title: 'Upcoming events',
  async run(deps, run) {
    const days = wholeNumberInput(run.inputs, 'days', 'Days') ?? DEFAULT_DAYS;
    if (isProblem(days)) return stepFailure(days.problem);
    if (days < 1 || days > MAX_DIGEST_DAYS) {
      return stepFailure(md`Days must be from 1 to ${MAX_DIGEST_DAYS} (the step was given ${days}).`);
    }
    const words = textInput(run.inputs, 'words');
    const problem = words === undefined ? undefined : searchTextProblem(words);
    if (problem) return stepFailure(clip(problem, 300));
    const snapshot = await deps.catalog.snapshot(deps.interactive());
    const now = deps.clock.now();
    const events = upcomingEvents(snapshot, { words }, 'UTC', now).filter(
      (event) => event.startsAtMs < now + days * DAY_MS,
    );
    return {
      kind: 'complete',
      outputs: { events_text: upcomingText({ events, days, words, asOf: snapshot.asOf }), count: events.length },
    };
  },
};
