import type { App } from '@slack/bolt';
import type { Config } from './config.js';
import { DigestRunner } from './digest/digest-runner.js';
import { DigestScheduler } from './digest/digest-scheduler.js';
import { Digests } from './digest/digests.js';
import { EventCatalog } from './digest/event-catalog.js';
import { pacedPoster } from './digest/slack-poster.js';
import { SubscriptionStore } from './digest/subscription-store.js';
import type { Logger } from './logger.js';
import { type Simulator, startSimulator } from './simulator/server.js';
import { createSlackApp } from './slack/create-slack-app.js';
import { PromoEditors } from './slack/promo-editors.js';
import { slackErrorCode } from './slack/user-message.js';
import { ValueStash } from './slack/value-stash.js';
import { ActivityStore } from './store/activity-store.js';
import { openStore } from './store/open-store.js';
import type { TicketingClient } from './ticketing/client.js';
import { createTicketingClient } from './ticketing/create-client.js';
import { UpcomingEvents } from './ticketing/upcoming-events.js';
import type { Clock } from './time/clock.js';
import { systemClock } from './time/clock.js';

export interface Bot {
  app: App;
  digests: Digests;
  ticketing: TicketingClient;
  activity: ActivityStore;
  /** The built-in simulator, when no TICKETING_API_URL was configured. */
  simulator: Simulator | undefined;
  close(): Promise<void>;
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
}

/** Builds the whole bot from a validated configuration; the caller starts `app`. */
export async function composeBot(config: Config, options: ComposeOptions): Promise<Bot> {
  const { logger } = options;
  const clock = options.clock ?? systemClock;
  if (!config.slack.botToken) throw new Error('composeBot needs SLACK_BOT_TOKEN');
  const closers: (() => Promise<void>)[] = [];
  try {
    let simulator: Simulator | undefined;
    let apiUrl = config.ticketing.apiUrl;
    let apiKey = config.ticketing.apiKey;
    if (!apiUrl || !apiKey) {
      simulator = await startSimulator({
        orgLimit: config.ticketing.orgLimit,
        reportLimit: config.ticketing.reportLimit,
      });
      closers.push(() => (simulator as Simulator).close());
      apiUrl = simulator.url;
      apiKey = simulator.apiKeys[0] as string;
      logger.info('No TICKETING_API_URL: using the built-in Event Ticketing simulator (demo data)', { url: apiUrl });
    }
    const ticketing = createTicketingClient({
      apiUrl,
      apiKey,
      orgLimit: config.ticketing.orgLimit,
      reportLimit: config.ticketing.reportLimit,
      reportCacheTtlMs: config.ticketing.reportCacheTtlMs,
      backgroundReserve: config.ticketing.backgroundReserve,
      logger: logger.child({ component: 'ticketing' }),
      clock,
    });
    closers.push(() => ticketing.close());
    const store = await openStore(config.storeUrl, options.cwd ? { cwd: options.cwd } : {});
    closers.push(() => store.close());
    logger.info('Store opened', { store: store.description });
    const activity = new ActivityStore(store.keyv);
    const interactiveTimeoutMs = options.interactiveTimeoutMs ?? 25_000;
    const maxRateLimitWaitMs = options.maxRateLimitWaitMs ?? 10_000;
    // The Slack client exists once the app does; digests post through it.
    let app: App | undefined;
    const slackClient = () => {
      if (!app) throw new Error('The Slack app is not built yet');
      return app.client;
    };
    const subscriptions = new SubscriptionStore(store.keyv, logger);
    const runner = new DigestRunner({
      subscriptions,
      claims: store.claims,
      catalog: new EventCatalog(ticketing, { clock }),
      post: pacedPoster(
        async (channel, message) => {
          await slackClient().chat.postMessage({ channel, text: message.text, blocks: message.blocks });
        },
        { perChannelMs: options.digestChannelSpacingMs ?? 1_100 },
      ),
      notify: async (userId, text) => {
        await slackClient().chat.postMessage({ channel: userId, text });
      },
      slackError: slackErrorCode,
      clock,
      logger: logger.child({ component: 'digest' }),
      graceMs: config.digestGraceMs,
    });
    const scheduler = new DigestScheduler(runner, logger);
    const digests = new Digests({ store: subscriptions, runner, scheduler, clock, logger });
    closers.push(async () => digests.stop());
    app = createSlackApp(
      {
        botToken: config.slack.botToken,
        signingSecret: config.slack.signingSecret,
        appToken: config.slack.appToken,
        apiUrl: config.slack.apiUrl,
        logger,
      },
      {
        ticketing,
        upcoming: new UpcomingEvents(ticketing, { clock }),
        digests,
        activity,
        editors: new PromoEditors(config.slack.promoEditors, logger),
        stash: new ValueStash({ now: () => clock.now() }),
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
    return {
      app,
      digests,
      ticketing,
      activity,
      simulator,
      close: async () => {
        await app.stop().catch(() => undefined);
        for (const close of closers.reverse()) await close().catch(() => undefined);
      },
    };
  } catch (error) {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    throw error;
  }
}
