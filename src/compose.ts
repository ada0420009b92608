import { randomUUID } from 'node:crypto';
import type { App } from '@slack/bolt';
import { storeCatalogShare } from './catalog/catalog-share.js';
import { EventCatalog } from './catalog/event-catalog.js';
import type { Config } from './config.js';
import { type DigestMetadata, DigestRunner } from './digest/digest-runner.js';
import { DigestScheduler } from './digest/digest-scheduler.js';
import { DigestService } from './digest/digest-service.js';
import { pacedPoster } from './digest/slack-poster.js';
import { SubscriptionStore } from './digest/subscription-store.js';
import { WorkTracker } from './lifecycle/work-tracker.js';
import type { Logger } from './logger.js';
import { healthRoutes, Readiness, startHealthServer } from './observability/health.js';
import { Metrics } from './observability/metrics.js';
import { PendingPromoChanges } from './promo/pending-promo-changes.js';
import type { SlackMessage } from './render/block-kit.js';
import { digestMessage, digestPausedMessage } from './render/digest-blocks.js';
import type { Simulator } from './simulator/server.js';
import { deliverReportInSlack } from './slack/ask-for-report.js';
import { createSlackApp } from './slack/create-slack-app.js';
import type { SharedReports } from './slack/deps.js';
import { PromoEditors } from './slack/promo-editors.js';
import type { ReportDelivery } from './slack/report-message.js';
import { channelRefusal, countSlackError } from './slack/slack-errors.js';
import { ActivityStore } from './store/activity-store.js';
import { type OpenedStore, openStore } from './store/open-store.js';
import type { TicketingClient } from './ticketing/client.js';
import { createTicketingClient } from './ticketing/create-client.js';
import type { Clock } from './time/clock.js';
import { sleep, systemClock } from './time/clock.js';

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

/** How long shutdown waits for one connection to close. */
const CLOSE_TIMEOUT_MS = 5_000;

/** What only replicas need (BullMQ, ioredis, the budget's Lua), loaded when the store is shared. */
async function loadReplicaModules() {
  const [{ SharedBudget }, { SharedReportQueue }] = await Promise.all([
    import('./ticketing/shared-budget.js'),
    import('./ticketing/shared-report-queue.js'),
  ]);
  return { SharedBudget, SharedReportQueue };
}

/** Builds the whole bot from a validated configuration; the caller starts `app`. */
export async function composeBot(config: Config, options: ComposeOptions): Promise<Bot> {
  const { logger } = options;
  const clock = options.clock ?? systemClock;
  if (!config.slack.botToken) throw new Error('composeBot needs SLACK_BOT_TOKEN');
  // Closed in reverse: the store opened first closes last, after everything that writes to it.
  const closers: (() => Promise<void>)[] = [];
  // A connection whose server is gone (Redis, say) may never finish closing: each gets a few seconds.
  const closeAll = async () => {
    for (const close of closers.splice(0).reverse()) {
      const done = new AbortController();
      const gaveUp = sleep(CLOSE_TIMEOUT_MS, done.signal).then(
        () => logger.warn('A connection did not close in time; leaving it'),
        () => undefined,
      );
      await Promise.race([close().catch(() => undefined), gaveUp]);
      done.abort();
    }
  };
  try {
    const store = options.openStore
      ? await options.openStore()
      : await openStore(config.storeUrl, {
          ...(options.cwd ? { cwd: options.cwd } : {}),
          logger,
          namespace: config.storeNamespace,
        });
    closers.push(() => store.close());
    logger.info('Store opened', { store: store.description });

    let simulator: Simulator | undefined;
    let apiUrl = config.ticketing.apiUrl;
    let apiKey = config.ticketing.apiKey;
    if (apiUrl === 'simulator') {
      // Loaded only when asked for: a deployment on a real service never holds the demo service.
      const { startSimulator } = await import('./simulator/server.js');
      simulator = await startSimulator({
        orgLimit: config.ticketing.orgLimit,
        reportLimit: config.ticketing.reportLimit,
      });
      closers.push(() => (simulator as Simulator).close());
      apiUrl = simulator.url;
      apiKey = simulator.apiKeys[0] as string;
      logger.warn('TICKETING_API_URL=simulator: serving demo data from the built-in simulator', { url: apiUrl });
    }
    if (!apiUrl || !apiKey) throw new Error('composeBot needs TICKETING_API_URL and TICKETING_API_KEY');
    const readiness = new Readiness({ store: store.keyValue, clock });
    // The metrics read the client on each scrape (after start-up); the client feeds them answers.
    const metrics = new Metrics({
      budget: () => ticketing.budget(),
      reportsWaiting: () => sharedReports?.queue.waiting() ?? ticketing.reportsWaiting,
    });
    const shared = store.shared;
    // Loaded only with replicas: one process on SQLite never has BullMQ or the budget's Lua in memory.
    const replicaModules = shared ? await loadReplicaModules() : undefined;
    const ticketing = createTicketingClient({
      apiUrl,
      apiKey,
      limits: config.ticketing,
      // With replicas, one budget for all of them, in the shared Redis.
      ...(shared && replicaModules
        ? {
            budget: new replicaModules.SharedBudget({
              run: shared.runScript,
              // One hash tag ({...}) for all of the budget's keys: one cluster slot holds them.
              key: `${shared.namespace}:budget`,
              limit: config.ticketing.orgLimit.limit,
              windowMs: config.ticketing.orgLimit.windowMs,
              reserveRatio: config.ticketing.backgroundReserve,
              clock,
              logger: logger.child({ component: 'budget' }),
            }),
          }
        : {}),
      logger: logger.child({ component: 'ticketing' }),
      observer: {
        response: (endpoint, status) => {
          metrics.apiRequests.inc({ endpoint, status: String(status) });
          readiness.answered(status);
        },
        rateLimited: (scope) => metrics.rateLimited.inc({ scope }),
        reportHeaders: (observation) => sharedReports?.queue.observe(observation),
      },
      clock,
    });
    const routes = healthRoutes(readiness, metrics);
    closers.push(() => ticketing.close());

    const work = new WorkTracker();
    const activity = new ActivityStore(store.keyValue);
    const interactiveTimeoutMs = options.interactiveTimeoutMs ?? 25_000;
    const maxRateLimitWaitMs = options.maxRateLimitWaitMs ?? 10_000;
    // The Slack client exists once the app does; digests post through it.
    let app: App | undefined;
    const slackClient = () => {
      if (!app) throw new Error('The Slack app is not built yet');
      return app.client;
    };
    const exclusive: SharedReports['exclusive'] = (key, work) => store.keyValue.exclusive(key, work);
    // With replicas, report requests wait in Redis; whichever replica fetches one finishes its message.
    const reportCacheTtlMs = config.ticketing.reportCacheTtlMs;
    const sharedReports: SharedReports | undefined =
      shared && replicaModules
        ? {
            queue: new replicaModules.SharedReportQueue<ReportDelivery>({
              connection: shared.connection,
              // A hash tag, so a Redis Cluster keeps the queue's keys (read together by its scripts) in one slot.
              prefix: `{${shared.namespace}}`,
              limit: config.ticketing.reportLimit,
              fetchReport: (eventId, signal) => ticketing.fetchReport(eventId, { priority: 'interactive', signal }),
              deliver: (job, outcome) => {
                metrics.reportWait.observe(Math.max(0, clock.now() - job.requestedAt) / 1000);
                const reportLimit = config.ticketing.reportLimit;
                const finish = { activity, clock, logger, reportLimit };
                return deliverReportInSlack(finish, slackClient(), exclusive, job.delivery, outcome);
              },
              // A TTL of 0 means no cache (keyv would read 0 as "forever").
              cache:
                reportCacheTtlMs > 0
                  ? {
                      get: (eventId) => store.keyValue.get(`report:${eventId}`),
                      set: (eventId, report) => store.keyValue.set(`report:${eventId}`, report, reportCacheTtlMs),
                    }
                  : undefined,
              lockMs: config.reportJobLockMs,
              stalledIntervalMs: config.reportJobLockMs,
              clock,
              logger: logger.child({ component: 'reports' }),
            }),
            exclusive,
          }
        : undefined;
    if (sharedReports) closers.push(() => sharedReports.queue.close());
    const subscriptions = new SubscriptionStore(store.keyValue, logger);
    const catalog = new EventCatalog({
      client: ticketing,
      orgLimit: config.ticketing.orgLimit,
      // With replicas, one crawl per period for all of them.
      share: shared ? { share: storeCatalogShare(store.keyValue, store.claims), owner: randomUUID() } : undefined,
      clock,
      logger: logger.child({ component: 'catalog' }),
    });
    const runner = new DigestRunner<SlackMessage>({
      subscriptions,
      messages: { digest: digestMessage, paused: digestPausedMessage },
      claims: store.claims,
      catalog,
      post: pacedPoster(
        async (channel: string, message: SlackMessage, metadata: DigestMetadata) => {
          await slackClient()
            .chat.postMessage({ channel, text: message.text, blocks: message.blocks, metadata })
            .catch((error: unknown) => {
              countSlackError(metrics, 'chat.postMessage', error);
              throw error;
            });
        },
        { perChannelMs: options.digestChannelSpacingMs ?? 1_100 },
      ),
      findPosted: async (channel, metadata, sinceMs) => {
        const history = await slackClient().conversations.history({
          channel,
          oldest: String(Math.max(0, sinceMs) / 1000),
          include_all_metadata: true,
          limit: 200,
        });
        return (history.messages ?? []).some((message) => {
          const payload = message.metadata?.event_payload as Record<string, unknown> | undefined;
          return (
            message.metadata?.event_type === metadata.event_type &&
            payload?.subscription === metadata.event_payload.subscription &&
            payload?.date === metadata.event_payload.date
          );
        });
      },
      notify: async (userId, message) => {
        await slackClient()
          .chat.postMessage({ channel: userId, text: message.text, blocks: message.blocks })
          .catch((error: unknown) => {
            countSlackError(metrics, 'chat.postMessage', error);
            throw error;
          });
      },
      channelRefusal,
      onOutcome: (outcome) => metrics.digests.inc({ outcome: outcome.kind }),
      clock,
      logger: logger.child({ component: 'digest' }),
      graceMs: config.digestGraceMs,
      ...(options.digestRetryBaseMs ? { retryBaseMs: options.digestRetryBaseMs } : {}),
    });
    const scheduler = new DigestScheduler({ runner, logger, clock, track: (job) => work.track(job) });
    const digests = new DigestService({ store: subscriptions, runner, scheduler, clock, logger });
    app = createSlackApp(
      {
        botToken: config.slack.botToken,
        signingSecret: config.slack.signingSecret,
        appToken: config.slack.appToken,
        apiUrl: config.slack.apiUrl,
        logger,
        routes,
      },
      {
        ticketing,
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
        reportLimit: config.ticketing.reportLimit,
        sharedReports,
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
    const started = app;
    sharedReports?.queue.start();
    // Socket Mode has no HTTP receiver: health and metrics get a small port of their own.
    if (config.slack.appToken && options.healthPort !== undefined) {
      const health = await startHealthServer(routes, options.healthPort, config.host);
      closers.push(() => new Promise<void>((resolve) => health.server.close(() => resolve())));
      logger.info('Health and metrics listening', { port: health.port });
    }
    let closing: Promise<void> | undefined;
    return {
      app: started,
      digests,
      ticketing,
      activity,
      simulator,
      work,
      catalog,
      metrics,
      readiness,
      close: (closeOptions = {}) => {
        closing ??= (async () => {
          digests.stop();
          catalog.stop();
          // Stops new work: queued reports are told so, commands arriving now are turned away.
          const drained = await work.drain(closeOptions.drainMs ?? 30_000);
          if (drained.unfinished > 0) logger.warn('Shutting down with work unfinished', drained);
          await started.stop().catch(() => undefined);
          await closeAll();
        })();
        return closing;
      },
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}
