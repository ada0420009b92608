import type { EventCatalog } from '../../catalog/event-catalog.js';
import type { EventLinks } from '../../catalog/event-links.js';
import type { UnfurlFigures, UnfurlStyle } from '../../config.js';
import type { DigestService } from '../../digest/digest-service.js';
import type { FiguresPolicy } from '../../figures/may-show-figures.js';
import type { SalesInsights } from '../../forecast/sales-insights.js';
import type { WorkTracker } from '../../lifecycle/work-tracker.js';
import type { Logger } from '../../logger.js';
import type { McpTokens } from '../../mcp/mcp-tokens.js';
import type { Metrics } from '../../observability/metrics.js';
import type { KnownPromoCodes } from '../../promo/known-promo-codes.js';
import type { PendingPromoChanges } from '../../promo/pending-promo-changes.js';
import type { SlackMessage } from '../../render/block-kit.js';
import type { PromoStepRestriction } from '../../render/home-view.js';
import type { Reports } from '../../reports/reports.js';
import type { ActivityStore } from '../../store/activity-store.js';
import type { CallOptions, TicketingClient } from '../../ticketing/client.js';
import type { RateLimitSpec } from '../../ticketing/rate-limit.js';
import type { Clock } from '../../time/clock.js';
import type { WatchScheduler } from '../../watches/watch-scheduler.js';
import type { WatchService } from '../../watches/watch-service.js';
import type { ReportTarget } from '../replies/report-target.js';
import type { ConversationAudience } from './conversation-audience.js';
import type { PromoEditors } from './promo-editors.js';
import type { ReportStreams } from './report-streams.js';
import type { WorkflowRuns } from './workflow-runs.js';

/** What every listener is given; nothing is reached for. */
export interface SlackDeps {
  ticketing: TicketingClient;
  /** Sales history and forecasts: shown with reports and on watch cards. */
  insights?: SalesInsights | undefined;
  /** The organization's events, shared by every reader. */
  catalog: EventCatalog;
  digests: DigestService;
  activity: ActivityStore;
  editors: PromoEditors;
  /** Keeps "Set promo quantity" offered in Workflow Builder to the editors; App Home says when Slack refused. */
  promoStepPermissions?:
    | {
        problemFor(userId: string): PromoStepRestriction | undefined;
        forApp(app: { appId?: string | undefined; botId?: string | undefined }): void;
      }
    | undefined;
  /** Workflow runs delivered so far: a run Slack delivers twice is run once. */
  runs: WorkflowRuns;
  /** Promo changes waiting for their requester's confirmation. */
  pending: PendingPromoChanges;
  /** Each event's promo code → id pairs, from every report read. */
  promoCodes: KnownPromoCodes;
  /** The report endpoint's limit as configured, for the words people read. */
  reportLimit: RateLimitSpec;
  logger: Logger;
  clock: Clock;
  /** Prometheus metrics (absent in some tests). */
  metrics?: Metrics | undefined;
  /** Running work shutdown waits for, and the signal that shutdown has begun. */
  work: WorkTracker;
  /** With replicas: the shared report queue (Redis); without, the client's own queue is used. */
  /** Reports: follow a request, fetch one for a caller, the report at hand (one process or replicas). */
  reports: Reports<ReportTarget>;
  /** Where a report's wait in a channel streams (REPORT_STREAMING=on); absent: a notice edited in place. */
  reportStreams?: ReportStreams | undefined;
  /** Least time between two edits of a report's progress message. */
  progressIntervalMs: number;
  /** Events a page of `/events list`. */
  pageSize: number;
  /** Watched events: their cards, alerts and checks (absent in some tests). */
  watches?: WatchService<SlackMessage> | undefined;
  /** Told when a watch is added, so that its first check comes at the next spare slot. */
  watchScheduler?: Pick<WatchScheduler, 'poke'> | undefined;
  /** The organization's event page links (EVENT_PAGE_URL): they unfold into event cards. */
  eventLinks?: EventLinks | undefined;
  /** Where those cards show report figures (UNFURL_FIGURES). */
  unfurlFigures: UnfurlFigures;
  /** How those links unfold: Work Objects (figures in each person's flexpane) or classic cards (UNFURL_STYLE). */
  unfurlStyle: UnfurlStyle;
  /** Whether a conversation is the organization's alone (Slack Connect), and who a person is, cached: the figures rule's facts. */
  audience: ConversationAudience;
  /** What the operator chose for guests (`FIGURES_FOR_GUESTS`). */
  figuresPolicy: FiguresPolicy;
  /** People's MCP tokens (absent: the MCP server is off, `MCP_SERVER`). */
  mcpTokens?: McpTokens | undefined;
  /** Options for an API call a person is waiting for: deadline, priority, patience with rate limits. */
  interactive(): CallOptions;
}
