import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { composeBot } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startSimulator } from '../../src/simulator/server.js';
import { BOT_TOKEN, FAST_SLACK_RETRY, SIGNING_SECRET } from '../helpers/bot.js';
import { type FakeSlack, startFakeSlack } from '../helpers/fake-slack.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});

async function compose(slackApiUrl: string) {
  const sim = await startSimulator({ anchorMs: Date.now() });
  cleanup.push(() => sim.close());
  const dir = await mkdtemp(join(tmpdir(), 'eventops-identity-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  const config = loadConfig({
    TICKETING_API_URL: sim.url,
    TICKETING_API_KEY: sim.apiKeys[0] as string,
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: slackApiUrl,
    STORE_URL: `sqlite://${join(dir, 'eventops.sqlite')}`,
  });
  const logs: string[] = [];
  const logger = createLogger({ level: 'debug', write: (line) => logs.push(line), secrets: [BOT_TOKEN] });
  return { attempt: composeBot(config, { logger, slackRetry: FAST_SLACK_RETRY }), logs };
}

describe('the bot asks Slack who it is once, before it starts', () => {
  let slack: FakeSlack;

  it('fails the start in words when Slack refuses the token, naming neither the token nor a part of it', async () => {
    slack = await startFakeSlack();
    cleanup.push(() => slack.close());
    slack.failNext('auth.test', 'invalid_auth');
    const { attempt, logs } = await compose(slack.apiUrl);
    const error = await attempt.then(
      () => undefined,
      (failure: unknown) => failure as Error,
    );
    expect(error?.message).toMatch(/^SLACK_BOT_TOKEN: Slack refused the token \(invalid_auth\)/);
    expect(`${error?.message} ${logs.join('\n')}`).not.toContain(BOT_TOKEN.slice(-12));
  });

  it('fails the start when Slack does not answer, instead of starting a bot that refuses every request', async () => {
    slack = await startFakeSlack();
    const url = slack.apiUrl;
    await slack.close();
    const { attempt } = await compose(url);
    await expect(attempt).rejects.toThrow(`SLACK_API_URL: could not reach Slack at ${url}`);
  });

  it('starts once Slack names the bot, and asks it once only', async () => {
    slack = await startFakeSlack();
    cleanup.push(() => slack.close());
    const { attempt } = await compose(slack.apiUrl);
    const bot = await attempt;
    cleanup.push(() => bot.close());
    expect(slack.calls.filter((call) => call.method === 'auth.test')).toHaveLength(1);
  });
});
