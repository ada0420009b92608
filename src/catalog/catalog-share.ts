import { silentLogger } from '../logger.js';
import { ClaimedWork } from '../store/claimed-work.js';
import type { ClaimStore } from '../store/claims.js';
import type { KeyValueStore } from '../store/key-value-store.js';
import type { TicketingEvent } from '../ticketing/schemas.js';

/** What one crawl found, as replicas hand it to each other. */
export interface SharedCrawl {
  /** Sorted soonest first. */
  events: TicketingEvent[];
  asOf: number;
  /** When the crawl began: the refresh period counts from here, on every replica. */
  startedAt: number;
  requests: number;
}

export type CrawlStamp = Omit<SharedCrawl, 'events'>;

/**
 * Lets replicas share one crawl: the newest crawl is published where all of them read it, and the
 * right to make the next one is claimed, so one replica crawls per period instead of each.
 */
export interface CatalogShare {
  /** The newest published crawl without its events (cheap to poll). */
  stamp(): Promise<CrawlStamp | undefined>;
  load(): Promise<SharedCrawl | undefined>;
  publish(crawl: SharedCrawl): Promise<void>;
  /**
   * Claims the crawl that follows the one stamped `after` (0: none yet): true for one replica. A
   * claim older than `staleMs` (its replica died mid-crawl) may be taken over.
   */
  claimNext(after: number, owner: string, now: number, staleMs: number): Promise<boolean>;
}

const STAMP = 'catalog:stamp';
const EVENTS = 'catalog:events';
/** A published crawl is dropped from the store after a day unpublished-over. */
const KEEP_MS = 86_400_000;

/** The share on the store every replica opens: values in the key-value store, the claim in claims. */
export function storeCatalogShare(store: KeyValueStore, claims: ClaimStore): CatalogShare {
  return {
    stamp: () => store.get<CrawlStamp>(STAMP),
    load: async () => {
      const stamp = await store.get<CrawlStamp>(STAMP);
      const events = await store.get<TicketingEvent[]>(EVENTS);
      return stamp && events ? { ...stamp, events } : undefined;
    },
    publish: async ({ events, ...stamp }) => {
      // Events first: a reader that sees the new stamp finds its events (or newer ones).
      await store.set(EVENTS, events, KEEP_MS);
      await store.set(STAMP, stamp, KEEP_MS);
    },
    claimNext: async (after, owner, now, staleMs) => {
      // Claimed as all claimed work is (`store/claimed-work.ts`), with a lease of `staleMs`.
      const work = new ClaimedWork({
        claims,
        owner,
        leaseMs: staleMs,
        clock: { now: () => now },
        logger: silentLogger,
      });
      const claimed = await work.claim(`catalog-crawl:${after}`);
      return claimed.kind === 'mine' || claimed.kind === 'recovered';
    },
  };
}
