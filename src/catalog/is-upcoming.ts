import type { TicketingEvent } from '../ticketing/schemas.js';

/**
 * The one meaning of "upcoming": the event has not ended by `now` (one still running counts, and
 * so does one whose end is not known, as a watch made before its event was read).
 */
export function isUpcoming(event: { endsAtMs: TicketingEvent['endsAtMs'] | undefined }, now: number): boolean {
  return event.endsAtMs === undefined || event.endsAtMs > now;
}

/** A cancelled event: not to be listed as coming, watched or promoted. */
export function isCancelled(event: { status?: TicketingEvent['status'] }): boolean {
  return event.status === 'cancelled';
}

/** What lists, digests, search and pickers call upcoming: not ended by `now`, and not cancelled. */
export function isListedUpcoming(event: TicketingEvent, now: number): boolean {
  return isUpcoming(event, now) && !isCancelled(event);
}
