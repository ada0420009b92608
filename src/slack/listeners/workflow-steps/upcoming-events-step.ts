import { searchTextProblem } from '../../../catalog/event-search.js';
import { upcomingEvents } from '../../../catalog/find-events.js';
import { MAX_DIGEST_DAYS } from '../../../digest/subscription.js';
import { clip, md } from '../../../render/mrkdwn.js';
import { upcomingText } from '../../../render/workflow-step-texts.js';
import { stepFailure } from '../../replies/finish-run.js';
import { isProblem, textInput, wholeNumberInput } from './step-inputs.js';
import type { WorkflowStep } from './workflow-step.js';

const DAY_MS = 24 * 60 * 60_000;
/** Days when the workflow gives none: a week, as `/events list week`. */
const DEFAULT_DAYS = 7;

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
