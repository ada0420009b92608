import type { TicketingEvent } from '../ticketing/schemas.js';
import type { EventLinks } from './event-links.js';

/** Most events one message is read for. */
const MAX_EVENTS = 5;
/** Names shorter than this are too likely to be ordinary words. */
const MIN_NAME_LENGTH = 4;

const ID = /(?:evt_)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

const folded = (text: string) => text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();

/**
 * The events a message names, in the order it names them: links to the event page, ids with or
 * without their `evt_` prefix, and exact event names (whole words, any case or accents).
 */
export function eventsNamedIn(
  text: string,
  events: readonly TicketingEvent[],
  links?: EventLinks | undefined,
): TicketingEvent[] {
  const byId = new Map(events.map((event) => [event.id.toLowerCase(), event]));
  const found: { at: number; event: TicketingEvent }[] = [];
  const add = (at: number, event: TicketingEvent | undefined) => {
    if (event && !found.some((f) => f.event.id === event.id)) found.push({ at, event });
  };
  for (const link of links?.linksIn(text) ?? []) add(text.indexOf(link.url), byId.get(link.eventId.toLowerCase()));
  for (const match of text.matchAll(ID)) {
    const id = match[0].toLowerCase();
    add(match.index ?? 0, byId.get(id.startsWith('evt_') ? id : `evt_${id}`));
  }
  const haystack = folded(text);
  for (const event of events) {
    const name = event.name ? folded(event.name).trim() : '';
    if (name.length < MIN_NAME_LENGTH) continue;
    let at = haystack.indexOf(name);
    while (at >= 0) {
      const before = haystack[at - 1];
      const after = haystack[at + name.length];
      const bounded = (ch: string | undefined) => ch === undefined || !/[\p{L}\p{N}]/u.test(ch);
      if (bounded(before) && bounded(after)) {
        add(at, event);
        break;
      }
      at = haystack.indexOf(name, at + 1);
    }
  }
  return found
    .sort((a, b) => a.at - b.at)
    .slice(0, MAX_EVENTS)
    .map((f) => f.event);
}
