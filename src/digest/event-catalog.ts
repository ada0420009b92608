import type { TicketingClient } from '../ticketing/client.js';
import type { TicketingEvent } from '../ticketing/schemas.js';
import type { Clock } from '../time/clock.js';
import { systemClock } from '../time/clock.js';

/**
 * Every event, crawled as background work and shared: digests that fire together join the crawl
 * in flight or reuse a fresh one, so a hundred channels cost one crawl.
 */
export class EventCatalog {
  readonly #client: TicketingClient;
  readonly #clock: Clock;
  readonly #maxAgeMs: number;
  #fresh: { events: TicketingEvent[]; at: number } | undefined;
  #inFlight: Promise<TicketingEvent[]> | undefined;

  constructor(client: TicketingClient, options: { maxAgeMs?: number; clock?: Clock } = {}) {
    this.#client = client;
    this.#clock = options.clock ?? systemClock;
    this.#maxAgeMs = options.maxAgeMs ?? 5 * 60_000;
  }

  all(): Promise<TicketingEvent[]> {
    if (this.#fresh && this.#clock.now() - this.#fresh.at < this.#maxAgeMs) return Promise.resolve(this.#fresh.events);
    if (this.#inFlight) return this.#inFlight;
    const crawl = (async () => {
      const events: TicketingEvent[] = [];
      for await (const event of this.#client.events({ priority: 'background', limit: 100 })) events.push(event);
      this.#fresh = { events, at: this.#clock.now() };
      return events;
    })();
    this.#inFlight = crawl;
    void crawl.then(
      () => {
        this.#inFlight = undefined;
      },
      () => {
        this.#inFlight = undefined;
      },
    );
    return crawl;
  }
}
