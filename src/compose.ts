import type { Server } from 'node:http';
import type { App } from '@slack/bolt';
import { buildCatalog } from './catalog/build-catalog.js';
import type { EventCatalog } from './catalog/event-catalog.js';
import { eventLinks } from './catalog/event-links.js';
import type { Config } from './config.js';
import { buildDigests } from './digest/build-digests.js';
import type { DigestService } from './digest/digest-service.js';
import { salesInsights } from './forecast/sales-insights.js';
import { buildSalesHistory } from './history/build-history.js';
import type { SalesHistory } from './history/sales-history.js';
import { Closers } from './lifecycle/closers.js';
import { shutdownInOrder } from './lifecycle/shutdown.js';
import { WorkTracker } from './lifecycle/work-tracker.js';
import type { Logger } from './logger.js';
import { type BuiltMcp, buildMcp, startMcpPort } from './mcp/build-mcp.js';
import {
  buildObservability,
  type ObservabilityDeadlines,
  startHealthPort,
} from './observability/build-observability.js';
import type { Readiness } from './observability/health.js';
import type { Metrics } from './observability/metrics.js';
import { KnownPromoCodes } from './promo/known-promo-codes.js';
import type { SlackMessage } from './render/block-kit.js';
import { ReportReads } from './reports/report-reads.js';
import { buildReports, type Reports } from './reports/reports.js';
import { buildTicketingService } from './simulator/build-ticketing-service.js';
import type { Simulator } from './simulator/server.js';
import { type SlackRetry, startHttpReceiver } from './slack/app/bolt-app.js';
import { buildSlackApp } from './slack/app/build-slack-app.js';
import { buildSlackSides, type SlackSides } from './slack/app/build-slack-sides.js';
import type { ReportTarget } from './slack/replies/report-target.js';
import { ActivityStore } from './store/activity-store.js';
import { openStore } from './store/open-store.js';
import type { StoreHandle } from './store/store-handle.js';
import { buildTicketing } from './ticketing/build-ticketing.js';
import type { RetryOptions, TicketingClient } from './ticketing/client.js';
import type { Clock } from './time/clock.js';
import { systemClock } from './time/clock.js';
import { buildWatches } from './watches/build-watches.js';
import { eventDatesIn } from './watches/event-dates.js';
import type { WatchScheduler } from './watches/watch-scheduler.js';
import type { WatchService } from './watches/watch-service.js';

export interface Bot {
  app: App;
  /** Opens the HTTP receiver (POST /slack/events) as `listen` says: the one way it is started. */
  listenForSlack(listen: { port: number; host?: string }): Promise<Server>;
  digests: DigestService;
  ticketing: TicketingClient;
  /** Reports asked for, their queue, and the subscription every report read goes to. */
  reports: Reports<ReportTarget>;
  activity: ActivityStore;
  /** The built-in simulator, when TICKETING_API_URL is `simulator`. */
  simulator: Simulator | undefined;
  /** Running work shutdown waits for. */
  work: WorkTracker;
  /** The organization's events; `start()` keeps them fresh in the background. */
  catalog: EventCatalog;
  /** Watched events; `watchScheduler.start()` checks them in the background. */
  watches: WatchService<SlackMessage>;
  watchScheduler: WatchScheduler;
  /** Every report read, as points of its event's sales history. */
  history: SalesHistory;
  metrics: Metrics;
  readiness: Readiness;
  /** The MCP server (`MCP_SERVER=on`): people's tokens and `/mcp`. */
  mcp: BuiltMcp | undefined;
  /**
   * Shuts down without losing anything: stops new work and digests, tells people whose reports
   * are still queued, waits for work in flight (API calls, their audit records), then closes the
   * client and the store, in that order.
   */
  close(options?: { drainMs?: number }): Promise<void>;
}

export interface ComposeOptions {
  logger: Logger;
  clock?: Clock;
  /** Folder that relative store paths resolve against. @default process.cwd() */
  cwd?: string;
  /** @default 25000 */
  interactiveTimeoutMs?: number;
  /** @default 2000 */
  progressIntervalMs?: number;
  /** Longest a person waits for the rate limit before being told how long it will be. @default 10000 */
  maxRateLimitWaitMs?: number;
  /** Least time between two digest posts to one channel. @default 1100 */
  digestChannelSpacingMs?: number;
  /** How long a promo confirmation stays valid. @default 10 minutes */
  promoConfirmationTtlMs?: number;
  /** How often the promo editors are read again, to keep the promo step restricted to them. @default 5 minutes */
  promoStepRefreshMs?: number;
  /** First wait before a failed digest is retried. @default 30 s */
  digestRetryBaseMs?: number;
  /** How failed Event Ticketing Service calls are tried again. @default 5 attempts, 200 ms doubling to 5 s */
  ticketingRetry?: RetryOptions;
  /** How failed Slack Web API calls are tried again. @default 2 retries, 500 ms doubling to 5 s */
  slackRetry?: SlackRetry;
  /** Socket Mode only: the port of /healthz, /readyz and /metrics. @default none */
  healthPort?: number;
  /** How long /readyz's store probe and /metrics' reads may take. @default 1 s, 1 s, 1.8 s in all */
  observability?: ObservabilityDeadlines;
  /** TICKETING_API_URL was not set, so the simulator is the default (the sandbox): the log says so. */
  simulatorByDefault?: boolean;
  /** Opens the store; the bot closes it last. @default `openStore(config.storeUrl)` */
  openStore?: () => Promise<StoreHandle>;
}

/** The store `STORE_URL` names (or the one the caller opens). */
async function openBotStore(config: Config, options: ComposeOptions, clock: Clock): Promise<StoreHandle> {
  const store = options.openStore
    ? await options.openStore()
    : await openStore(config.storeUrl, {
        ...(options.cwd ? { cwd: options.cwd } : {}),
        logger: options.logger,
        namespace: config.storeNamespace,
        clock,
      });
  options.logger.info('Store opened', { store: store.description });
  return store;
}

/** With replicas: the queue they share in Redis, and how a report read on this one is finished in Slack. */
function sharedQueue(store: StoreHandle, config: Config, deliver: SlackSides['deliverReport']) {
  const { keyValue, shared } = store;
  return shared && { ...shared, store: keyValue, lockMs: config.reportJobLockMs, deliver };
}

/**
 * Builds the whole bot from a validated configuration, area by area; the caller starts `app`.
 * Each area's builder lives with the area; this function orders them and owns the shutdown: what
 * is built first closes last (the store), after everything that writes to it.
 */
export async function composeBot(config: Config, options: ComposeOptions): Promise<Bot> {
  const { logger } = options;
  const clock = options.clock ?? systemClock;
  const { botToken } = config.slack;
  if (!botToken) throw new Error('composeBot needs SLACK_BOT_TOKEN');
  const closers = new Closers(logger);
  try {
    const store = closers.keep(await openBotStore(config, options, clock));
    const { ticketing: limits, figuresPolicy } = config;
    const service = closers.keep(await buildTicketingService(limits, options));
    const work = new WorkTracker();
    // What most builders are given: the store's two faces, the clock and log, and shutdown's tracker.
    const stores = { store: store.keyValue, claims: store.claims };
    const base = { clock, logger, track: <T>(job: Promise<T>) => work.track(job) };
    const activity = new ActivityStore(store.keyValue, { keep: config.promoAuditKeep });

    const observability = buildObservability({ store: store.keyValue, clock, deadlines: options.observability });
    const { metrics, readiness, routes } = observability;
    const { apiUrl, apiKey, simulator } = service;
    const observer = observability.apiObserver();
    const retry = options.ticketingRetry;
    const ticketing = closers.keep(
      await buildTicketing({ apiUrl, apiKey, limits, shared: store.shared, observer, retry, clock, logger }),
    );
    const sharedStores = store.shared && stores;
    const catalog = buildCatalog({ ticketing, orgLimit: limits.orgLimit, shared: sharedStores, clock, logger });

    // Every report read, before the reports: what follows a read (promo codes, the sales history,
    // its forecasts) is built first, and the reports' Slack delivery shows those forecasts.
    const reads = new ReportReads(logger);
    const promoCodes = new KnownPromoCodes({ store: store.keyValue, clock, logger });
    promoCodes.rememberEachRead(reads, base.track);
    const eventInfo = (eventId: string) => catalog.current()?.byId.get(eventId);
    const { history } = buildSalesHistory({ ...base, store: store.keyValue, reads, eventDates: eventInfo });
    const insights = salesInsights({ history, eventInfo, clock, cacheTtlMs: limits.reportCacheTtlMs });
    const delivery = { activity, reportLimit: limits.reportLimit, insights };
    const slack = buildSlackSides({ slack: config.slack, figuresPolicy, store, delivery, metrics, clock, logger });

    // The reports keep each event's record (every read and promo write) in the store; the watches
    // take the reports' spare slots, so the reports are built first.
    const reports = closers.keep(
      await buildReports<ReportTarget>({
        ticketing,
        limits,
        reads,
        shared: sharedQueue(store, config, slack.deliverReport),
        store: store.keyValue,
        activity,
        metrics,
        stopping: work.stopping,
        progressIntervalMs: options.progressIntervalMs ?? 2_000,
        clock,
        logger,
      }),
    );
    observability.measure({ budget: () => ticketing.budget(), reportsWaiting: () => reports.waiting() });

    const watches = buildWatches<SlackMessage>({
      ...base,
      ...stores,
      ...slack.watches,
      ...observability.watchObserver(),
      reads,
      reports,
      insights,
      figuresPolicy,
      reportLimit: limits.reportLimit,
      minIntervalMs: config.watchMinIntervalMs,
      maxWatchesPerPerson: config.watchesPerPerson,
      acrossReplicas: store.shared !== undefined,
      leaseMs: config.reportJobLockMs,
      eventDates: (eventId) => eventDatesIn(catalog.current(), eventId),
    });
    const digests = buildDigests<SlackMessage>({
      ...base,
      ...stores,
      ...slack.digests,
      ...observability.digestObserver(),
      catalog,
      salesFrom: { watches: watches.service, history, insights },
      channelSpacingMs: options.digestChannelSpacingMs ?? 1_100,
      graceMs: config.digestGraceMs,
      retryBaseMs: options.digestRetryBaseMs,
    });

    // Agents' front end beside Slack's, over the same use cases, queue, budget and figures rule.
    const mcp = config.mcp.on
      ? buildMcp({
          ...base,
          store: store.keyValue,
          tokenTtlMs: config.mcp.tokenTtlMs,
          callsPerPerson: config.mcp.callsPerPerson,
          catalog,
          reports,
          promoCodes,
          insights,
          watches: watches.service,
          ticketing,
          activity,
          figuresPolicy,
        })
      : undefined;

    const bot = { ticketing, reports, activity, simulator, work, catalog, history, digests, metrics, readiness, mcp };
    const app = await buildSlackApp({
      slack: { ...config.slack, botToken },
      store,
      routes,
      retry: options.slackRetry,
      mcp,
      sides: slack,
      timings: options,
      parts: {
        ...bot,
        watches: watches.service,
        watchScheduler: watches.scheduler,
        promoCodes,
        insights,
        figuresPolicy,
        reportLimit: limits.reportLimit,
        eventLinks: config.eventPageUrl ? eventLinks(config.eventPageUrl) : undefined,
        clock,
        logger,
      },
    });
    reports.start();
    const socketMode = config.slack.appToken !== undefined;
    closers.keep(await startHealthPort(routes, { socketMode, port: options.healthPort, host: config.host, logger }));
    if (mcp && socketMode)
      closers.keep(await startMcpPort(mcp.route, { port: config.mcp.port, host: config.host, logger }));

    const close = shutdownInOrder({ starters: [digests, watches.scheduler, catalog], work, app, closers, logger });
    const listenForSlack = (listen: { port: number; host?: string }) => startHttpReceiver(app, listen);
    return { ...bot, app, listenForSlack, watches: watches.service, watchScheduler: watches.scheduler, close };
  } catch (error) {
    await closers.closeAll();
    throw error;
  }
}
