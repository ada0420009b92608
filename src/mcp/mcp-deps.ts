import type { EventCatalog } from '../catalog/event-catalog.js';
import type { FiguresPolicy, Person } from '../figures/may-show-figures.js';
import type { SalesInsights } from '../forecast/sales-insights.js';
import type { Logger } from '../logger.js';
import type { KnownPromoCodes } from '../promo/known-promo-codes.js';
import type { PendingPromoChanges } from '../promo/pending-promo-changes.js';
import type { ProposeResult } from '../promo/promo-changes.js';
import type { Reports } from '../reports/reports.js';
import type { ActivityStore } from '../store/activity-store.js';
import type { KeyValueStore } from '../store/key-value-store.js';
import type { CallOptions, TicketingClient } from '../ticketing/client.js';
import type { RateLimitSpec } from '../ticketing/rate-limit.js';
import type { Clock } from '../time/clock.js';

/** What the MCP tools need of Slack: who a person is, and the person's own promo confirmation. */
export interface McpSlack {
  /** Who a Slack user is (member, guest, of another organization): the figures rule's fact. */
  personOf(userId: string): Promise<Person>;
  /** The person's Slack timezone, when Slack says (the list's days). */
  zoneOf(userId: string): Promise<string | undefined>;
  /** Whether the person may change promo codes now. */
  isEditor(userId: string): Promise<boolean>;
  /** Promo changes waiting for their requester's one confirmation. */
  pending: PendingPromoChanges;
  /** Sends the person, in a DM, the single-use confirmation `/events promo` gives for this change. */
  sendPromoConfirmation(userId: string, result: Extract<ProposeResult, { kind: 'confirm' }>): Promise<void>;
}

/** What the MCP tools are given: the same use cases, queue and rules as the Slack listeners. */
export interface McpDeps {
  catalog: EventCatalog;
  reports: Pick<Reports<unknown>, 'fetchFor' | 'atHand' | 'wrote' | 'quantityNow'>;
  promoCodes: KnownPromoCodes;
  insights?: SalesInsights | undefined;
  /** A person's watches (absent: none kept here). */
  watches?: { list(filter: { setBy: string }): Promise<{ watch: WatchLike }[]> } | undefined;
  ticketing: Pick<TicketingClient, 'updatePromoQuantity'>;
  activity: ActivityStore;
  /** Where each person's tool calls are counted, by every replica. */
  store: Pick<KeyValueStore, 'update'>;
  /** The Slack side, once the app is built. */
  slack(): McpSlack;
  figuresPolicy: FiguresPolicy;
  callsPerPerson: RateLimitSpec;
  /** Options for a call the agent waits for (deadline, priority). */
  interactive(): CallOptions;
  clock: Clock;
  logger: Logger;
}

/** A watch as `my_watches` lists it. */
interface WatchLike {
  channel: string;
  personal: boolean;
  eventId: string;
  eventName: string;
  conditions: readonly { key: string }[];
}
