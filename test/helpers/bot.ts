import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Bot, type ComposeOptions, composeBot } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { type Simulator, type SimulatorOptions, startSimulator } from '../../src/simulator/server.js';
import { type FakeSlack, startFakeSlack } from './fake-slack.js';
import { fakeSlackToken } from './fake-tokens.js';

export const SIGNING_SECRET = 'test-signing-secret-0123456789';
export const BOT_TOKEN = fakeSlackToken('b', 'test-token-not-real');
/** The Ticketing client's retries of a failed call, milliseconds apart (a deployment waits 200 ms doubling to 5 s). */
export const FAST_TICKETING_RETRY = { baseDelayMs: 5, maxDelayMs: 50 };
/** The Slack client's retries (a deployment waits 500 ms, then 1 s). */
export const FAST_SLACK_RETRY = { minTimeoutMs: 10, maxTimeoutMs: 50 };

export interface BotRig {
  bot: Bot;
  sim: Simulator;
  slack: FakeSlack;
  /** POST /slack/events of the running bot. */
  url: string;
  logs: string[];
  dataDir: string;
  /** Stops the bot (as on SIGTERM) and starts a new one on the same store, simulator and Slack. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/** The real bot (real Bolt HTTP receiver, real client, real SQLite) against the simulator and a fake Slack. */
export async function startBot(
  options: {
    sim?: SimulatorOptions;
    env?: Record<string, string>;
    interactiveTimeoutMs?: number;
    compose?: Partial<ComposeOptions>;
  } = {},
): Promise<BotRig> {
  const sim = await startSimulator({ anchorMs: Date.now(), ...options.sim });
  const slack = await startFakeSlack();
  const dataDir = await mkdtemp(join(tmpdir(), 'eventops-test-'));
  const logs: string[] = [];
  const config = loadConfig({
    TICKETING_API_URL: sim.url,
    TICKETING_API_KEY: sim.apiKeys[0] as string,
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: slack.apiUrl,
    STORE_URL: `sqlite://${join(dataDir, 'eventops.sqlite')}`,
    PROMO_EDITORS: 'U0EDITOR,S0EDITORS',
    LOG_LEVEL: 'debug',
    ...options.env,
  });
  const logger = createLogger({
    level: 'debug',
    write: (line) => logs.push(line),
    secrets: [config.ticketing.apiKey, BOT_TOKEN, SIGNING_SECRET],
  });
  const boot = async () => {
    const bot = await composeBot(config, {
      logger,
      progressIntervalMs: 0,
      // Failed calls are tried again at once (milliseconds, not the hundreds a deployment waits).
      ticketingRetry: FAST_TICKETING_RETRY,
      slackRetry: FAST_SLACK_RETRY,
      ...(options.interactiveTimeoutMs ? { interactiveTimeoutMs: options.interactiveTimeoutMs } : {}),
      ...options.compose,
    });
    const server = await bot.listenForSlack({ port: 0, host: '127.0.0.1' });
    return { bot, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events` };
  };
  const rig: BotRig = {
    ...(await boot()),
    sim,
    slack,
    logs,
    dataDir,
    restart: async () => {
      await rig.bot.close();
      Object.assign(rig, await boot());
    },
    close: async () => {
      await rig.bot.close();
      await slack.close();
      await sim.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return rig;
}
