import type { EventCatalog } from '../../catalog/event-catalog.js';
import { isCancelled } from '../../catalog/is-upcoming.js';

/** Whether the catalog (as crawled, no call) says the event is cancelled now: its report says so. */
export function cancelledNow(catalog: Pick<EventCatalog, 'current'>, eventId: string): boolean {
  const known = catalog.current()?.byId.get(eventId);
  return known !== undefined && isCancelled(known);
}
