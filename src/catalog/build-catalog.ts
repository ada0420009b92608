import { randomUUID } from 'node:crypto';
import type { Logger } from '../logger.js';
import type { ClaimStore } from '../store/claims.js';
import type { KeyValueStore } from '../store/key-value-store.js';
import type { TicketingClient } from '../ticketing/client.js';
import type { RateLimitSpec } from '../ticketing/rate-limit.js';
import type { Clock } from '../time/clock.js';
import { storeCatalogShare } from './catalog-share.js';
import { EventCatalog } from './event-catalog.js';

/** The organization's events, crawled through `client`; with replicas, one crawl per period for all of them. */
export function buildCatalog(options: {
  ticketing: TicketingClient;
  orgLimit: RateLimitSpec;
  /** The replicas' shared store, or undefined for one process. */
  shared: { store: KeyValueStore; claims: ClaimStore } | undefined;
  clock: Clock;
  logger: Logger;
}): EventCatalog {
  const { shared } = options;
  return new EventCatalog({
    client: options.ticketing,
    orgLimit: options.orgLimit,
    share: shared ? { share: storeCatalogShare(shared.store, shared.claims), owner: randomUUID() } : undefined,
    clock: options.clock,
    logger: options.logger.child({ component: 'catalog' }),
  });
}
