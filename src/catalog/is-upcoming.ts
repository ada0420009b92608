import type { TicketingEvent } from '../ticketing/schemas.js';

/**
 * The one meaning of "upcoming": the event has not ended by `now` (one still running counts, and
 * so does one whose end is not known, as a watch made before its event was read).
 */
export function isUpcoming(event: { endsAtMs: TicketingEvent['endsAtMs'] | undefined }, now: number): boolean {
  return event.endsAtMs === undefined || event.endsAtMs > now;
}
