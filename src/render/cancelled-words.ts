import { isCancelled } from '../catalog/is-upcoming.js';
import type { TicketingEvent } from '../ticketing/schemas.js';
import { type SlackMessage, warningMessage } from './block-kit.js';
import { eventLabel } from './event-blocks.js';
import { eventOption } from './modal-views.js';
import { clipName, type Mrkdwn, md } from './mrkdwn.js';

/** What a person asked to do with an event that turned out cancelled. */
export type CancelledAsk = 'watch' | 'promo';

const WHAT: Record<CancelledAsk, Mrkdwn> = {
  watch: md`there is nothing to watch`,
  promo: md`its promo codes are not to be changed`,
};

/** Why a cancelled event is not watched or promoted, naming it and where the upcoming ones are. */
export function cancelledEventWords(eventName: string, ask: CancelledAsk): Mrkdwn {
  return md`*${clipName(eventName, 200)}* is cancelled: ${WHAT[ask]}. Nothing was changed. \`/events list\` shows the upcoming events.`;
}

/** Refuses to watch or promote a cancelled event, as a message. */
export function cancelledEventMessage(eventName: string, ask: CancelledAsk): SlackMessage {
  return warningMessage(cancelledEventWords(eventName, ask));
}

/** The same refusal as a form's field error (plain text, within Slack's 150 characters for it). */
export function cancelledEventFieldError(eventName: string, ask: CancelledAsk): string {
  const what = ask === 'watch' ? 'nothing to watch' : 'its promo codes stay as they are';
  const tail = ` is cancelled: ${what}. Pick an upcoming one.`;
  const room = 150 - tail.length;
  return `${eventName.length > room ? `${eventName.slice(0, room - 1)}…` : eventName}${tail}`;
}

/** The opening of a cancelled event's watch summary (`withheld`: its figures are not shown here). */
export function cancelledSummaryOpening(name: Mrkdwn, withheld: boolean): Mrkdwn {
  return withheld
    ? md`:no_entry: *${name}* is cancelled. The watch has ended.`
    : md`:no_entry: *${name}* is cancelled, so the watch has ended. Last figures read:`;
}

/** The summary's notification text for a cancelled event. */
export function cancelledSummaryText(name: Mrkdwn): Mrkdwn {
  return md`${name} is cancelled; the watch has ended.`;
}

/** A watch card's status once its event is cancelled. */
export const CANCELLED_CARD_STATUS = md`:no_entry: The event is cancelled, so the watch has ended. No more checks.`;

/** A picker option for a picker that offers events that are not upcoming: a cancelled one says so first. */
export function markedEventOption(event: TicketingEvent): ReturnType<typeof eventOption> {
  return isCancelled(event) ? eventOption({ ...event, name: `(cancelled) ${eventLabel(event)}` }) : eventOption(event);
}
