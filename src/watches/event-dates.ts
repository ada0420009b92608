import type { CatalogSnapshot } from '../catalog/event-catalog.js';
import { isCancelled } from '../catalog/is-upcoming.js';
import type { TicketingEvent } from '../ticketing/schemas.js';
import type { EventDates, WatchedEventInfo } from './watch-service.js';

/** The plain date an all-day event ends on (its end given as `YYYY-MM-DD`), else undefined. */
const endsOn = (event: TicketingEvent) => (event.end.kind === 'date' ? event.end.iso : undefined);

/** What a watch keeps of an event as the catalog has it, named as the person reads it. */
export function watchedEventInfo(event: TicketingEvent, name: string): WatchedEventInfo {
  return {
    id: event.id,
    name,
    startsAtMs: event.startsAtMs,
    endsAtMs: event.endsAtMs,
    endsOn: endsOn(event),
  };
}

/**
 * An event's dates as a complete crawl has them, or that the crawl no longer lists it (undefined
 * before any crawl has finished: nothing is known).
 */
export function eventDatesIn(snapshot: CatalogSnapshot | undefined, eventId: string): EventDates | undefined {
  if (!snapshot) return undefined;
  const event = snapshot.byId.get(eventId);
  return event
    ? {
        listed: true,
        startsAtMs: event.startsAtMs,
        endsAtMs: event.endsAtMs,
        endsOn: endsOn(event),
        asOf: snapshot.asOf,
        ...(isCancelled(event) ? { cancelled: true } : {}),
      }
    : { listed: false, asOf: snapshot.asOf };
}
