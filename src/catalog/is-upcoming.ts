import type { TicketingEvent } from '../ticketing/schemas.js';

/** The one meaning of "upcoming": the event has not ended by `now` (one still running counts). */
export function isUpcoming(event: TicketingEvent, now: number): boolean {
  return event.endsAtMs > now;
}
