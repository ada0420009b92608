import { parseId } from '../../../ticketing/ids.js';
import type { TicketingEvent } from '../../../ticketing/schemas.js';
import type { SlackDeps } from '../../deps/slack-deps.js';

/**
 * What the catalog in memory says of a picked event, without waiting (Slack waits 3 s for the
 * answer to a submission): found; surely not listed (a miss in a crawl still within its period, or
 * an id no picker gave); or not known yet (no crawl so far, or one past its period).
 */
export function eventInMemory(deps: SlackDeps, eventId: string): TicketingEvent | 'unlisted' | undefined {
  let id: string;
  try {
    id = parseId('event', eventId);
  } catch {
    return 'unlisted';
  }
  const snapshot = deps.catalog.current();
  if (!snapshot) return undefined;
  const event = snapshot.byId.get(id);
  if (event) return event;
  return deps.clock.now() - snapshot.asOf < deps.catalog.periodMs ? 'unlisted' : undefined;
}
