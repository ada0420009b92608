import { randomUUID } from 'node:crypto';
import type { App } from '@slack/bolt';
import { storeCatalogShare } from './catalog/catalog-share.js';
import { EventCatalog } from './catalog/event-catalog.js';
import { eventLinks } from './catalog/event-links.js';
import type { Config } from './config.js';
import { buildDigests } from './digest/build-digests.js';
import type { DigestService } from './digest/digest-service.js';
import { Closers } from './lifecycle/closers.js';
import { WorkTracker } from './lifecycle/work-tracker.js';
import type { Logger } from './logger.js';
import { buildObservability } from './observability/build-observability.js';
import { type Readiness, startHealthServer } from './observability/health.js';
import type { Metrics } from './observability/metrics.js';
import { PendingPromoChanges } from './promo/pending-promo-changes.js';
import type { SlackMessage } from './render/block-kit.js';
import { digestMessage, digestPausedMessage } from './render/digest-blocks.js';
import { buildSharedReportQueue } from './reports/build-reports.js';
import { spareReports } from './reports/spare-reports.js';
import type { Simulator } from './simulator/server.js';
import { deliverReportInSlack } from './slack/ask-for-report.js';
import { createSlackApp } from './slack/create-slack-app.js';
import type { SharedReports } from './slack/deps.js';
import { digestSlack } from './slack/digest-slack.js';
import { PromoEditors } from './slack/promo-editors.js';
import type { ReportDelivery } from './slack/report-target.js';
import { watchMessages, watchSlack } from './slack/watch-slack.js';
import { workflowRuns } from './slack/workflow-runs.js';
import { ActivityStore } from './store/activity-store.js';
import { type OpenedStore, openStore } from './store/open-store.js';
import { buildTicketing } from './ticketing/build-ticketing.js';
import type { TicketingClient } from './ticketing/client.js';
import type { Clock } from './time/clock.js';
import { systemClock } from './time/clock.js';
import { buildWatches } from './watches/build-watches.js';
import type { WatchScheduler } from './watches/watch-scheduler.js';
import type { WatchService } from './watches/watch-service.js';

export interface Bot {
  app: App;
  digests: DigestService;
  ticketing: TicketingClient;
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
  metrics: Metrics;
  readiness: Readiness;
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
  /** First wait before a failed digest is retried. @default 30 s */
  digestRetryBaseMs?: number;
  /** Socket Mode only: the port of /healthz, /readyz and /metrics. @default none */
  healthPort?: number;
  /** Opens the store; the bot closes it last. @default `openStore(config.storeUrl)` */
  openStore?: () => Promise<OpenedStore>;
}

/** The demo service, when TICKETING_API_URL is `simulator`: loaded only then, so a deployment never holds it. */
async function ticketingService(config: Config, closers: Closers, logger: Logger) {
  if (config.ticketing.apiUrl !== 'simulator') {
    return { apiUrl: config.ticketing.apiUrl, apiKey: config.ticketing.apiKey, simulator: undefined };
  }
  const { startSimulator } = await import('./simulator/server.js');
  const simulator = await startSimulator({
    orgLimit: config.ticketing.orgLimit,
    reportLimit: config.ticketing.reportLimit,
    // Sales accumulate, promo codes run down, some events sell out: a watch fires within minutes.
    motion: 'moving',
  });
  closers.add(() => simulator.close());
  logger.warn('TICKETING_API_URL=simulator: serving demo data from the built-in simulator', { url: simulator.url });
  return { apiUrl: simulator.url, apiKey: simulator.apiKeys[0], simulator };
}

/**
 * Builds the whole bot from a validated configuration, area by area; the caller starts `app`.
 * Each area's builder lives with the area; this function orders them and owns the shutdown.
 */
export async function composeBot(config: Config, options: ComposeOptions): Promise<Bot> {
  const { logger } = options;
  const clock = options.clock ?? systemClock;
  if (!config.slack.botToken) throw new Error('composeBot needs SLACK_BOT_TOKEN');
  const closers = new Closers(logger);
  try {
    // The store opens first and closes last, after everything that writes to it.
    const store = options.openStore
      ? await options.openStore()
      : await openStore(config.storeUrl, {
          ...(options.cwd ? { cwd: options.cwd } : {}),
          logger,
          namespace: config.storeNamespace,
        });
    closers.add(() => store.close());
    logger.info('Store opened', { store: store.description });
    const { shared } = store;

    const { apiUrl, apiKey, simulator } = await ticketingService(config, closers, logger);
    if (!apiUrl || !apiKey) throw new Error('composeBot needs TICKETING_API_URL and TICKETING_API_KEY');

    // The metrics read the client and the queue on each scrape, once both exist.
    let ticketing: TicketingClient | undefined;
    let sharedReports: SharedReports | undefined;
    let watches: ReturnType<typeof buildWatches<SlackMessage>> | undefined;
    const observability = buildObservability({
      store: store.keyValue,
      clock,
      sources: {
        budget: () => (ticketing as TicketingClient).budget(),
        reportsWaiting: () => sharedReports?.queue.waiting() ?? (ticketing as TicketingClient).reportsWaiting,
      },
    });
    const { metrics, readiness, routes } = observability;

    const client = await buildTicketing({
      apiUrl,
      apiKey,
      limits: config.ticketing,
      shared,
      observer: observability.apiObserver({
        reportHeaders: (observation) => sharedReports?.queue.observe(observation),
        // A report a person fetched counts as a check of the event, if it is watched.
        reportFetched: (eventId, report) => {
          // Tracked, so shutdown waits for it before the store closes.
          work
            .track(watches?.service.observe(eventId, report) ?? Promise.resolve())
            .catch((error: unknown) =>
              logger.warn('A fetched report could not update its watches', { eventId, error }),
            );
        },
      }),
      clock,
      logger,
    });
    ticketing = client;
    closers.add(() => client.close());

    const work = new WorkTracker();
    const activity = new ActivityStore(store.keyValue);
    // The Slack client exists once the app does; digests and shared reports post through it.
    let app: App | undefined;
    const slackClient = () => {
      if (!app) throw new Error('The Slack app is not built yet');
      return app.client;
    };

    if (shared) {
      const finish = { activity, clock, logger, reportLimit: config.ticketing.reportLimit, store: store.keyValue };
      const queue = await buildSharedReportQueue<ReportDelivery>({
        shared,
        store: store.keyValue,
        limit: config.ticketing.reportLimit,
        cacheTtlMs: config.ticketing.reportCacheTtlMs,
        lockMs: config.reportJobLockMs,
        fetchReport: (eventId, signal) => client.fetchReport(eventId, { priority: 'interactive', signal }),
        deliver: (job, outcome) => {
          metrics.reportWait.observe(Math.max(0, clock.now() - job.requestedAt) / 1000);
          return deliverReportInSlack(finish, slackClient(), job.delivery, outcome);
        },
        clock,
        logger,
      });
      sharedReports = { queue, store: store.keyValue };
      closers.add(() => queue.close());
    }

    const catalog = new EventCatalog({
      client,
      orgLimit: config.ticketing.orgLimit,
      // With replicas, one crawl per period for all of them.
      share: shared ? { share: storeCatalogShare(store.keyValue, store.claims), owner: randomUUID() } : undefined,
      clock,
      logger: logger.child({ component: 'catalog' }),
    });

    const digests = buildDigests<SlackMessage>({
      store: store.keyValue,
      claims: store.claims,
      catalog,
      messages: { digest: digestMessage, paused: digestPausedMessage },
      chat: digestSlack(slackClient, metrics),
      onOutcome: (outcome) => metrics.digests.inc({ outcome: outcome.kind }),
      channelSpacingMs: options.digestChannelSpacingMs ?? 1_100,
      graceMs: config.digestGraceMs,
      retryBaseMs: options.digestRetryBaseMs,
      track: (job) => work.track(job),
      clock,
      logger,
    });

    watches = buildWatches<SlackMessage>({
      store: store.keyValue,
      claims: store.claims,
      chat: watchSlack(slackClient, metrics),
      messages: watchMessages,
      reports: spareReports(client, sharedReports?.queue),
      reportLimit: config.ticketing.reportLimit,
      minIntervalMs: config.watchMinIntervalMs,
      acrossReplicas: shared !== undefined,
      leaseMs: config.reportJobLockMs,
      eventDates: (eventId) => catalog.current()?.byId.get(eventId),
      onCheck: (source, sinceMs) => {
        metrics.watchChecks.inc({ source });
        if (sinceMs !== undefined) metrics.watchCheckInterval.observe(sinceMs / 1000);
      },
      onAlert: (condition) => metrics.watchAlerts.inc({ condition }),
      track: (job) => work.track(job),
      clock,
      logger,
    });
    const { service: watchService, scheduler: watchScheduler } = watches;

    const interactiveTimeoutMs = options.interactiveTimeoutMs ?? 25_000;
    const maxRateLimitWaitMs = options.maxRateLimitWaitMs ?? 10_000;
    const started = createSlackApp(
      {
        botToken: config.slack.botToken,
        signingSecret: config.slack.signingSecret,
        appToken: config.slack.appToken,
        apiUrl: config.slack.apiUrl,
        logger,
        routes,
      },
      {
        ticketing: client,
        catalog,
        digests,
        activity,
        editors: new PromoEditors(config.slack.promoEditors, { logger, clock }),
        pending: new PendingPromoChanges({
          store: store.keyValue,
          claims: store.claims,
          clock,
          ...(options.promoConfirmationTtlMs ? { ttlMs: options.promoConfirmationTtlMs } : {}),
        }),
        runs: workflowRuns(store.claims, clock, logger),
        reportLimit: config.ticketing.reportLimit,
        sharedReports,
        watches: watchService,
        watchScheduler,
        eventLinks: config.eventPageUrl ? eventLinks(config.eventPageUrl) : undefined,
        metrics,
        work,
        logger,
        clock,
        progressIntervalMs: options.progressIntervalMs ?? 2_000,
        pageSize: 10,
        interactive: () => ({
          signal: AbortSignal.timeout(interactiveTimeoutMs),
          priority: 'interactive',
          maxRateLimitWaitMs,
        }),
      },
    );
    app = started;
    sharedReports?.queue.start();

    // Socket Mode has no HTTP receiver: health and metrics get a small port of their own.
    if (config.slack.appToken && options.healthPort !== undefined) {
      const health = await startHealthServer(routes, options.healthPort, config.host);
      closers.add(() => new Promise<void>((resolve) => health.server.close(() => resolve())));
      logger.info('Health and metrics listening', { port: health.port });
    }

    let closing: Promise<void> | undefined;
    return {
      app: started,
      digests,
      ticketing: client,
      activity,
      simulator,
      work,
      catalog,
      watches: watchService,
      watchScheduler,
      metrics,
      readiness,
      close: (closeOptions = {}) => {
        closing ??= (async () => {
          digests.stop();
          watchScheduler.stop();
          catalog.stop();
          // Stops new work: queued reports are told so, commands arriving now are turned away.
          const drained = await work.drain(closeOptions.drainMs ?? 30_000);
          if (drained.unfinished > 0) logger.warn('Shutting down with work unfinished', drained);
          await started.stop().catch(() => undefined);
          await closers.closeAll();
        })();
        return closing;
      },
    };
  } catch (error) {
    await closers.closeAll();
    throw error;
  }
}
