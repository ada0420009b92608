import { searchTextProblem } from '../../../catalog/event-search.js';
import type { SlackMessage } from '../../../render/block-kit.js';
import { eventChoicesMessage, type FinishChoice, noEventMessage } from '../../../render/event-blocks.js';
import { code, joinMrkdwn, md } from '../../../render/mrkdwn.js';
import type { TicketingEvent } from '../../../ticketing/schemas.js';
import type { SlackDeps } from '../../deps/slack-deps.js';

/** Most names a "did you mean" names (its buttons may offer more events, when names repeat). */
const MAX_NAMES = 3;

export interface NoEventAnswer {
  /** The id or words as typed. */
  query: string;
  asOf: number;
  /** The events whose names come closest to the words (`resolveEvent`'s or `closeEvents`), if any. */
  closest?: readonly TicketingEvent[] | undefined;
  /** What each close event's button does: show its card, or finish the command with it. */
  action: 'show' | FinishChoice;
  /** The command to type for an event, after `/events` (its name where that reads back as it). */
  typed: (event: TicketingEvent) => string;
}

/**
 * Words that found no event: "did you mean" the closest names (from the catalog in memory), each
 * event with the button that finishes the command, and the command to type for the first; with
 * none close, "no event matches" and where to look.
 */
export function noEventAnswer(deps: Pick<SlackDeps, 'catalog'>, answer: NoEventAnswer): SlackMessage {
  const closest = answer.closest ?? [];
  const [first] = closest;
  if (!first)
    return noEventMessage({ target: answer.query, asOf: answer.asOf, refreshPeriodMs: deps.catalog.periodMs });
  const names = [...new Set(closest.flatMap((event) => (event.name ? [event.name] : [])))].slice(0, MAX_NAMES);
  return eventChoicesMessage({
    events: closest,
    query: answer.query,
    action: answer.action,
    asOf: answer.asOf,
    heading: md`:mag: No event matches ${code(answer.query, 120)}. Did you mean ${joinMrkdwn(
      names.map((name) => code(name, 120)),
      md` or `,
    )}? Pick one below, or type ${code(`/events ${answer.typed(first)}`, 300)}.`,
  });
}

/**
 * The answer when words did not name one event: several, a "which one?" whose buttons finish the
 * command; none, `noEventAnswer`.
 */
export function notOneEventAnswer(
  deps: Pick<SlackDeps, 'catalog'>,
  resolved:
    | { kind: 'choices'; events: readonly TicketingEvent[]; asOf: number }
    | { kind: 'none'; asOf: number; closest?: readonly TicketingEvent[] | undefined },
  answer: Omit<NoEventAnswer, 'asOf' | 'closest'> & { action: FinishChoice },
): SlackMessage {
  return resolved.kind === 'choices'
    ? eventChoicesMessage({ events: resolved.events, query: answer.query, action: answer.action, asOf: resolved.asOf })
    : noEventAnswer(deps, { ...answer, asOf: resolved.asOf, closest: resolved.closest });
}

/**
 * An event's name as a command's words: its id when it has no name, a name too long to search,
 * or (`colonEnds`: a watch, whose conditions follow a colon) a colon in its name.
 */
export function nameOrId(event: TicketingEvent, options: { colonEnds?: boolean } = {}): string {
  const name = event.name?.trim();
  if (!name || searchTextProblem(name) || (options.colonEnds && name.includes(':'))) return event.id;
  return name;
}
