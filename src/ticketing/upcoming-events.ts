import type { LRUCache } from 'lru-cache';
import type { Clock } from '../time/clock.js';
import { systemClock } from '../time/clock.js';
import { ttlCache } from '../ttl-cache.js';
import type { CallOptions, TicketingClient } from './client.js';
import type { Page } from './paginate.js';
import type { TicketingEvent } from './schemas.js';

/** Where a page of upcoming events starts: an API cursor (verbatim) and how far into its page. */
export interface UpcomingPosition {
  cursor: string | undefined;
  offset: number;
}

export interface UpcomingPage {
  events: TicketingEvent[];
  next: UpcomingPosition | undefined;
}

export interface UpcomingEventsOptions {
  clock?: Clock;
  /** How long an API page is reused for "Next" clicks. @default 60000 */
  pageTtlMs?: number;
  /** Most API pages one call may read looking for upcoming events. @default 5 */
  maxApiPages?: number;
}

/**
 * Pages of events that have not ended, following the API's cursor. Events are sorted soonest
 * first within each API page only: the spec promises no order across pages, so an event on a
 * later API page may start sooner. API pages are cached briefly so paging costs one request.
 */
export class UpcomingEvents {
  readonly #client: TicketingClient;
  readonly #clock: Clock;
  readonly #maxApiPages: number;
  readonly #cache: LRUCache<string, Page<TicketingEvent>>;

  constructor(client: TicketingClient, options: UpcomingEventsOptions = {}) {
    this.#client = client;
    this.#clock = options.clock ?? systemClock;
    this.#maxApiPages = options.maxApiPages ?? 5;
    this.#cache = ttlCache({ max: 100, ttlMs: options.pageTtlMs ?? 60_000, clock: this.#clock });
  }

  async page(position: UpcomingPosition, options: CallOptions & { pageSize: number }): Promise<UpcomingPage> {
    const now = this.#clock.now();
    const events: TicketingEvent[] = [];
    let at = position;
    for (let read = 0; events.length < options.pageSize; ) {
      const apiPage = await this.#apiPage(at.cursor, options);
      read += 1;
      const upcoming = apiPage.items
        .filter((event) => event.endsAtMs > now)
        .sort((a, b) => a.startsAtMs - b.startsAtMs || a.id.localeCompare(b.id));
      const taken = upcoming.slice(at.offset, at.offset + options.pageSize - events.length);
      events.push(...taken);
      const consumed = at.offset + taken.length;
      if (consumed < upcoming.length) return { events, next: { cursor: at.cursor, offset: consumed } };
      if (!apiPage.hasMore || !apiPage.nextCursor) return { events, next: undefined };
      at = { cursor: apiPage.nextCursor, offset: 0 };
      if (read >= this.#maxApiPages) break;
    }
    return { events, next: at };
  }

  async #apiPage(cursor: string | undefined, options: CallOptions) {
    const key = cursor ?? '';
    const cached = this.#cache.get(key);
    if (cached) return cached;
    const page = await this.#client.listEvents({ ...options, cursor, limit: 100 });
    this.#cache.set(key, page);
    return page;
  }
}
