import { closeEvents, searchTextProblem } from '../../../catalog/event-search.js';
import { resolveEvent } from '../../../catalog/find-events.js';
import { eventLabel } from '../../../render/event-blocks.js';
import { clip, joinMrkdwn, type Mrkdwn, md } from '../../../render/mrkdwn.js';
import { asOfUtc } from '../../../render/workflow-step-texts.js';
import { tryParseId } from '../../../ticketing/ids.js';
import type { TicketingEvent } from '../../../ticketing/schemas.js';
import type { SlackDeps } from '../../deps/slack-deps.js';

/** What a step could not use, in words for the workflow's author. */
export type InputProblem = { problem: Mrkdwn };

export const isProblem = (value: unknown): value is InputProblem =>
  typeof value === 'object' && value !== null && 'problem' in value;

/** A text input: a string (or a number, which Workflow Builder may pass), trimmed; undefined when empty. */
export function textInput(inputs: Readonly<Record<string, unknown>>, name: string): string | undefined {
  const value = inputs[name];
  const text = typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '';
  return text === '' ? undefined : text;
}

/** A whole-number input: a number, or digits as text; undefined when empty. */
export function wholeNumberInput(
  inputs: Readonly<Record<string, unknown>>,
  name: string,
  label: string,
): number | undefined | InputProblem {
  const value = inputs[name];
  if (value === undefined || value === null || value === '') return undefined;
  const number = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof number === 'number' && Number.isSafeInteger(number)) return number;
  return { problem: md`${clip(label, 40)} must be a whole number.` };
}

/**
 * The Slack user id in a `slack#/types/user_context` input: the person who started the run, set
 * by Slack from the trigger or a button, never typed by the workflow's author.
 */
export function userContextId(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || !('id' in value)) return undefined;
  return typeof value.id === 'string' && /^[UW][A-Z0-9]{2,}$/.test(value.id) ? value.id : undefined;
}

/** A `slack#/types/channel_id` input: a conversation id, else undefined. */
export function conversationInput(value: unknown): string | undefined {
  return typeof value === 'string' && /^[CGD][A-Z0-9]{2,}$/.test(value) ? value : undefined;
}

/** "as of 14:05 UTC": how old the event list is (a step's words may be read anywhere, so in UTC). */

/**
 * The one event a step's `event` input names: its id (with or without `evt_`), or words of its
 * name matching one event clearly. None, or several, is a problem that says what to use instead.
 */
export async function eventForStep(deps: SlackDeps, text: string | undefined): Promise<TicketingEvent | InputProblem> {
  if (text === undefined) return { problem: md`The step needs an event: its id (evt_…) or words of its name.` };
  const id = tryParseId('event', text);
  if (!id) {
    const problem = searchTextProblem(text);
    if (problem) return { problem: clip(problem, 300) };
  }
  const resolved = await resolveEvent(deps.catalog, id ? { id } : { words: text }, deps.interactive());
  const quoted = md`"${clip(text, 60)}"`;
  if (resolved.kind === 'found') return resolved.event;
  if (resolved.kind === 'none') {
    return {
      problem: md`No event matches ${quoted} in the event list (as of ${asOfUtc(resolved.asOf)}).${didYouMeanEvents(resolved.closest ?? [])} Check the event's id (evt_…) or the words of its name.`,
    };
  }
  const shown = resolved.events.slice(0, 5).map((event) => md`${clip(eventLabel(event), 60)} (${clip(event.id, 60)})`);
  const more = resolved.events.length > shown.length ? md` and others` : md``;
  return {
    problem: md`${quoted} matches several events: ${joinMrkdwn(shown, md`; `)}${more}. Give the step one event's id (evt_…) instead.`,
  };
}

/** Most events a step's "did you mean" names. */
const MAX_CLOSE = 3;

/** " Did you mean "Winter Gala" (evt_…)?" for the events whose names come closest; nothing when none does. */
function didYouMeanEvents(closest: readonly TicketingEvent[]): Mrkdwn {
  const shown = closest
    .slice(0, MAX_CLOSE)
    .map((event) => md`"${clip(eventLabel(event), 60)}" (${clip(event.id, 60)})`);
  return shown.length > 0 ? md` Did you mean ${joinMrkdwn(shown, md` or `)}?` : md``;
}

/** A name as it is compared exactly: trimmed, spaces collapsed, any case. */
const exactName = (name: string) => name.trim().replace(/\s+/g, ' ').toLowerCase();

/**
 * The one event a step that changes something names: its id (with or without `evt_`), or a name
 * that matches exactly one event's whole name (any case). Never words of a name: a run acts
 * unattended, and "Jazz Night 2025" must not find "Jazz Night 2026" once 2025 has left the list.
 */
export async function eventForStepExactly(
  deps: SlackDeps,
  text: string | undefined,
): Promise<TicketingEvent | InputProblem> {
  if (text === undefined) return { problem: md`The step needs an event: its id (evt_…) or its whole name.` };
  if (tryParseId('event', text)) return eventForStep(deps, text);
  const snapshot = deps.catalog.current() ?? (await deps.catalog.snapshot(deps.interactive()));
  const wanted = exactName(text);
  const named = snapshot.events.filter((event) => event.name !== undefined && exactName(event.name) === wanted);
  const quoted = md`"${clip(text, 60)}"`;
  if (named.length === 1) return named[0] as TicketingEvent;
  if (named.length === 0)
    return {
      problem: md`No event is named exactly ${quoted} in the event list (as of ${asOfUtc(snapshot.asOf)}).${didYouMeanEvents(closeEvents(snapshot.events, text))} This step changes promo codes, so it takes an event's id (evt_…) or its whole name, never words of it.`,
    };
  const shown = named.slice(0, 5).map((event) => md`${clip(event.id, 60)}`);
  return {
    problem: md`${named.length} events are named ${quoted}: ${joinMrkdwn(shown, md`, `)}. Give the step one event's id (evt_…) instead.`,
  };
}
