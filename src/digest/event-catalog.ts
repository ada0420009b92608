import type { LRUCache } from 'lru-cache';
import type { TicketingClient } from '../ticketing/client.js';
import type { TicketingEvent } from '../ticketing/schemas.js';
import type { Clock } from '../time/clock.js';
import { systemClock } from '../time/clock.js';
import { ttlCache } from '../ttl-cache.js';

const ALL = 'all';

/**
 * Every event, crawled as background work and shared: digests that fire together join the crawl
 * in flight or reuse a fresh one, so a hundred channels cost one crawl.
 */
export class EventCatalog {
  readonly #client: Pick<TicketingClient, 'events'>;
  readonly #fresh: LRUCache<string, TicketingEvent[]>;
  #inFlight: Promise<TicketingEvent[]> | undefined;

  constructor(client: Pick<TicketingClient, 'events'>, options: { maxAgeMs?: number; clock?: Clock } = {}) {
    this.#client = client;
    this.#fresh = ttlCache({ max: 1, ttlMs: options.maxAgeMs ?? 5 * 60_000, clock: options.clock ?? systemClock });
  }

  all(): Promise<TicketingEvent[]> {
    const fresh = this.#fresh.get(ALL);
    if (fresh) return Promise.resolve(fresh);
    this.#inFlight ??= (async () => {
      try {
        const events: TicketingEvent[] = [];
        for await (const event of this.#client.events({ priority: 'background', limit: 100 })) events.push(event);
        this.#fresh.set(ALL, events);
        return events;
      } finally {
        this.#inFlight = undefined;
      }
    })();
    return this.#inFlight;
  }
}
