import type { App } from '@slack/bolt';
import { buildCatalog } from './catalog/build-catalog.js';
import type { EventCatalog } from './catalog/event-catalog.js';
import { eventLinks } from './catalog/event-links.js';
import type { Config } from './config.js';
import { buildDigests } from './digest/build-digests.js';
import { salesDigestComposer } from './digest/digest-composers.js';
import type { DigestService } from './digest/digest-service.js';
import { watchedWithFigures } from './digest/watched-with-figures.js';
import { type SalesInsights, salesInsights } from './forecast/sales-insights.js';
import { buildSalesHistory } from './history/build-history.js';
import type { SalesHistory } from './history/sales-history.js';
import { Closers } from './lifecycle/closers.js';
import { LatePart } from './lifecycle/late-part.js';
import { WorkTracker } from './lifecycle/work-tracker.js';
import type { Logger } from './logger.js';
import { buildObservability, type ObservabilityDeadlines } from './observability/build-observability.js';
import { type Readiness, startHealthServer } from './observability/health.js';
import type { Metrics } from './observability/metrics.js';
import { KnownPromoCodes } from './promo/known-promo-codes.js';
import type { SlackMessage } from './render/block-kit.js';
import { digestMessage, digestPausedMessage } from './render/digest-blocks.js';
import { salesDigestMessage } from './render/sales-digest-blocks.js';
import { buildReports, type Reports } from './reports/reports.js';
import type { Simulator } from './simulator/server.js';
import { digestSlack } from './slack/adapters/digest-slack.js';
import { watchMessages, watchSlack } from './slack/adapters/watch-slack.js';
import type { SlackRetry } from './slack/app/bolt-app.js';
import { buildSlackApp } from './slack/app/build-slack-app.js';
import { conversationAudience } from './slack/deps/conversation-audience.js';
import { storeForgetMarks } from './slack/deps/forget-marks.js';
import { ReportStreams } from './slack/deps/report-streams.js';
import { watchReader } from './slack/deps/watch-reader.js';
import { workflowRuns } from './slack/deps/workflow-runs.js';
import type { ReportTarget } from './slack/replies/report-target.js';
import { slackReportDelivery } from './slack/reports/ask-for-report.js';
import { ActivityStore } from './store/activity-store.js';
import { openStore } from './store/open-store.js';
import type { StoreHandle } from './store/store-handle.js';
import { buildTicketing } from './ticketing/build-ticketing.js';
import type { RetryOptions, TicketingClient } from './ticketing/client.js';
import { NotFoundError } from './ticketing/errors.js';
import type { Clock } from './time/clock.js';
import { systemClock } from './time/clock.js';
import { type BuiltWatches, buildWatches } from './watches/build-watches.js';
import { eventDatesIn } from './watches/event-dates.js';
import type { WatchScheduler } from './watches/watch-scheduler.js';
import type { WatchService } from './watches/watch-service.js';

export interface Bot {
  app: App;
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

/** The demo service, when TICKETING_API_URL is `simulator`: loaded only then, so a deployment never holds it. */
async function ticketingService(config: Config, logger: Logger, byDefault = false) {
  if (config.ticketing.apiUrl !== 'simulator') {
    const { apiUrl, apiKey } = config.ticketing;
    if (!apiUrl || !apiKey) throw new Error('composeBot needs TICKETING_API_URL and TICKETING_API_KEY');
    return { apiUrl, apiKey, simulator: undefined, close: async () => {} };
  }
  const { startSimulator } = await import('./simulator/server.js');
  const simulator = await startSimulator({
    orgLimit: config.ticketing.orgLimit,
    reportLimit: config.ticketing.reportLimit,
    // Sales accumulate, promo codes run down, some events sell out: a watch fires within minutes.
    motion: 'moving',
  });
  logger.warn(
    byDefault
      ? 'TICKETING_API_URL is not set: the built-in simulator serves demo data (set it to a real service to use one)'
      : 'TICKETING_API_URL=simulator: serving demo data from the built-in simulator',
    { url: simulator.url },
  );
  return {
    apiUrl: simulator.url,
    apiKey: simulator.apiKeys[0] as string,
    simulator,
    close: () => simulator.close(),
  };
}

/** The store `STORE_URL` names (or the one the caller opens). */
function openBotStore(config: Config, options: ComposeOptions, clock: Clock): Promise<StoreHandle> {
  if (options.openStore) return options.openStore();
  return openStore(config.storeUrl, {
    ...(options.cwd ? { cwd: options.cwd } : {}),
    logger: options.logger,
    namespace: config.storeNamespace,
    clock,
  });
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
    logger.info('Store opened', { store: store.description });
    const { shared } = store;
    const service = closers.keep(await ticketingService(config, logger, options.simulatorByDefault));
    const work = new WorkTracker();
    const activity = new ActivityStore(store.keyValue, { keep: config.promoAuditKeep });
    const promoCodes = new KnownPromoCodes({ store: store.keyValue, clock, logger });

    // Parts that others refer to before they exist: read at a scrape, in a callback, once built.
    const late = {
      ticketing: new LatePart<TicketingClient>('The ticketing client'),
      reports: new LatePart<Reports<ReportTarget>>('The reports'),
      watches: new LatePart<BuiltWatches<SlackMessage>>('The watches'),
      insights: new LatePart<SalesInsights>('The sales insights'),
      app: new LatePart<App>('The Slack app'),
    };
    const slackClient = () => late.app.get().client;
    // Read when a report is shown: built with the sales history, after the catalog.
    const insights: SalesInsights = {
      of: (eventId, report) => late.insights.get().of(eventId, report),
      finished: (now) => late.insights.get().finished(now),
    };

    const observability = buildObservability({
      store: store.keyValue,
      clock,
      deadlines: options.observability,
      sources: {
        budget: () => late.ticketing.get().budget(),
        reportsWaiting: () => late.reports.get().waiting(),
      },
    });
    const { metrics, readiness, routes } = observability;

    const client = late.ticketing.set(
      closers.keep(
        await buildTicketing({
          apiUrl: service.apiUrl,
          apiKey: service.apiKey,
          limits: config.ticketing,
          shared,
          observer: observability.apiObserver(),
          clock,
          logger,
          ...(options.ticketingRetry ? { retry: options.ticketingRetry } : {}),
        }),
      ),
    );

    // Who can read a conversation (Slack Connect) and who a person is (a guest, of another
    // organization): the figures rule's facts, for every path that sends figures.
    // With replicas an event that says who reads a conversation reaches one of them: the others
    // keep what they learnt for 30 s, not 5 minutes.
    // The shared marks make a forget (an event that reached one replica) heard by all of them.
    const audience = conversationAudience({
      logger,
      clock,
      ...(shared ? { ttlMs: 30_000, marks: storeForgetMarks(store.keyValue, 60_000) } : {}),
    });
    // One per process: the stream methods' tiers are counted across all of its reports.
    const reportStreams =
      config.slack.reportStreaming === 'on' ? new ReportStreams({ clock, logger, metrics }) : undefined;

    // Reports, one service whichever queue keeps the limit: listeners and watches never ask which.
    // What follows each report read registers with `reports.onReportRead` where it is built.
    const reports = late.reports.set(
      closers.keep(
        await buildReports<ReportTarget>({
          ticketing: client,
          limits: config.ticketing,
          shared: shared && {
            connection: shared.connection,
            namespace: shared.namespace,
            store: store.keyValue,
            lockMs: config.reportJobLockMs,
            deliver: slackReportDelivery(
              {
                activity,
                clock,
                logger,
                metrics,
                reportLimit: config.ticketing.reportLimit,
                store: store.keyValue,
                insights,
                audience,
                figuresPolicy: config.figuresPolicy,
                runs: workflowRuns(store.claims, clock, logger),
                streams: reportStreams,
              },
              slackClient,
            ),
          },
          lastCheck: async (eventId) => late.watches.peek()?.service.lastCheck(eventId),
          activity,
          clock,
          logger,
          metrics,
          stopping: work.stopping,
          progressIntervalMs: options.progressIntervalMs ?? 2_000,
        }),
      ),
    );
    promoCodes.rememberEachRead(reports, (job) => work.track(job));

    const catalog = buildCatalog({
      client,
      orgLimit: config.ticketing.orgLimit,
      shared: shared ? { store: store.keyValue, claims: store.claims } : undefined,
      clock,
      logger,
    });

    const history = buildSalesHistory({
      store: store.keyValue,
      reads: reports,
      eventDates: (eventId) => catalog.current()?.byId.get(eventId),
      track: (job) => work.track(job),
      clock,
      logger,
    });

    late.insights.set(
      salesInsights({
        history: history.history,
        eventInfo: (eventId) => catalog.current()?.byId.get(eventId),
        clock,
      }),
    );

    const digests = buildDigests<SlackMessage>({
      store: store.keyValue,
      claims: store.claims,
      catalog,
      messages: { digest: digestMessage, paused: digestPausedMessage },
      // The sales digest: the conversation's watched events (a person's own for --me), from their stored history.
      sales: salesDigestComposer({
        watched: (conversation) => watchedWithFigures(late.watches.get().service, conversation),
        history: history.history,
        finished: (now) => insights.finished(now),
        message: salesDigestMessage,
        clock,
      }),
      chat: digestSlack(slackClient, metrics, logger),
      onOutcome: (outcome) => metrics.digests.inc({ outcome: outcome.kind }),
      channelSpacingMs: options.digestChannelSpacingMs ?? 1_100,
      graceMs: config.digestGraceMs,
      retryBaseMs: options.digestRetryBaseMs,
      track: (job) => work.track(job),
      clock,
      logger,
    });

    const watches = late.watches.set(
      buildWatches<SlackMessage>({
        store: store.keyValue,
        reads: reports,
        claims: store.claims,
        chat: watchSlack(slackClient, metrics, logger),
        messages: watchMessages,
        reports: {
          spare: (eventId, spareOptions) => reports.spare(eventId, spareOptions),
          isNotFound: (error) => error instanceof NotFoundError,
        },
        reportLimit: config.ticketing.reportLimit,
        minIntervalMs: config.watchMinIntervalMs,
        maxWatchesPerPerson: config.watchesPerPerson,
        reader: watchReader(audience),
        figuresPolicy: config.figuresPolicy,
        forecast: async (eventId, report) => {
          const insight = await insights.of(eventId, report);
          return insight && { forecast: insight.forecast, startsAtMs: insight.startsAtMs };
        },
        acrossReplicas: shared !== undefined,
        leaseMs: config.reportJobLockMs,
        eventDates: (eventId) => eventDatesIn(catalog.current(), eventId),
        onCheck: (source, sinceMs) => {
          metrics.watchChecks.inc({ source });
          if (sinceMs !== undefined) metrics.watchCheckInterval.observe(sinceMs / 1000);
        },
        onAlert: (condition) => metrics.watchAlerts.inc({ condition }),
        onTurn: (outcome) => metrics.watchTurns.inc({ outcome }),
        track: (job) => work.track(job),
        clock,
        logger,
      }),
    );

    const app = late.app.set(
      await buildSlackApp({
        slack: { ...config.slack, botToken },
        store,
        routes,
        retry: options.slackRetry,
        parts: {
          ticketing: client,
          catalog,
          digests,
          activity,
          promoCodes,
          reportLimit: config.ticketing.reportLimit,
          reports,
          watches: watches.service,
          watchScheduler: watches.scheduler,
          eventLinks: config.eventPageUrl ? eventLinks(config.eventPageUrl) : undefined,
          audience,
          figuresPolicy: config.figuresPolicy,
          insights,
          metrics,
          reportStreams,
          work,
          logger,
          clock,
        },
        interactiveTimeoutMs: options.interactiveTimeoutMs,
        maxRateLimitWaitMs: options.maxRateLimitWaitMs,
        progressIntervalMs: options.progressIntervalMs,
        promoConfirmationTtlMs: options.promoConfirmationTtlMs,
        promoStepRefreshMs: options.promoStepRefreshMs,
      }),
    );
    reports.start();

    // Socket Mode has no HTTP receiver: health and metrics get a small port of their own.
    if (config.slack.appToken && options.healthPort !== undefined) {
      const health = await startHealthServer(routes, options.healthPort, config.host);
      closers.add(() => new Promise<void>((resolve) => health.server.close(() => resolve())));
      logger.info('Health and metrics listening', { port: health.port });
    }

    let closing: Promise<void> | undefined;
    return {
      app,
      digests,
      ticketing: client,
      reports,
      activity,
      simulator: service.simulator,
      work,
      catalog,
      watches: watches.service,
      watchScheduler: watches.scheduler,
      history: history.history,
      metrics,
      readiness,
      close: (closeOptions = {}) => {
        closing ??= (async () => {
          digests.stop();
          watches.scheduler.stop();
          catalog.stop();
          // Stops new work: queued reports are told so, commands arriving now are turned away.
          const drained = await work.drain(closeOptions.drainMs ?? 30_000);
          if (drained.unfinished > 0) logger.warn('Shutting down with work unfinished', drained);
          await app.stop().catch(() => undefined);
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
