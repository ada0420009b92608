import { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { startBot } from '../helpers/bot.js';
import { command, nthResponse } from '../helpers/bot-actions.js';
import { useRedis } from '../helpers/redis-server.js';
import { startScript } from '../helpers/script-process.js';

/*
 * Half-configured starts, as a new operator makes them, next to a Redis that already holds a real
 * deployment's state: the process refuses, or runs the sandbox on a store of its own, and not one
 * key of the deployment changes either way.
 */

const redis = useRedis();

interface Entry {
  /** DUMP, base64. */
  value: string;
  /** When it expires by itself (PTTL), if it does. */
  expiresAt?: number;
}

/** Every key with its value (DUMP) and when it expires: what a deployment would lose or see change. */
async function snapshot(url: string): Promise<Record<string, Entry>> {
  const client = new Redis(url);
  try {
    const keys = (await client.keys('*')).sort();
    const entries = await Promise.all(
      keys.map(async (key) => {
        const [dump, ttl] = await Promise.all([client.dumpBuffer(key), client.pttl(key)]);
        const entry: Entry = { value: `${dump?.toString('base64')}` };
        if (ttl >= 0) entry.expiresAt = Date.now() + ttl;
        return [key, entry] as const;
      }),
    );
    return Object.fromEntries(entries);
  } finally {
    client.disconnect();
  }
}

/**
 * Redis holds what it held in `before`: no key written, changed or deleted. A key whose own life
 * ended meanwhile (BullMQ's stalled check lives 30 s; a starved machine can take that long over
 * three starts) may be gone; still there, it must be as it was.
 */
async function expectUnchanged(): Promise<void> {
  const now = await snapshot(redis.url);
  const soon = Date.now() + 1_000;
  const kept = Object.entries(before).filter(([key, entry]) => key in now || (entry.expiresAt ?? Infinity) > soon);
  const values = (entries: [string, Entry][]) => Object.fromEntries(entries.map(([key, entry]) => [key, entry.value]));
  expect(values(Object.entries(now))).toEqual(values(kept));
  for (const [key, entry] of Object.entries(now))
    expect(entry.expiresAt === undefined, key).toBe(before[key]?.expiresAt === undefined);
}

/** `src/main.ts`, built, as `npm start` runs it, with exactly `env` (nothing of this process's own). */
const startMain = (env: Record<string, string>) => startScript('src/main.ts', { LOG_LEVEL: 'info', PORT: '0', ...env });

let before: Record<string, Entry>;
beforeAll(async () => {
  // A deployment's state: catalog, a digest subscription, claims, its budget, its report queue.
  const rig = await startBot({ env: { STORE_URL: redis.url } });
  try {
    const on = await command(rig, 'digest on 07:30 UTC');
    await nthResponse(rig, on.responseUrl);
    await command(rig, `report ${rig.sim.catalog.events[0]?.id}`);
    await rig.slack.waitFor(() =>
      rig.slack.calls.find(
        (call) => call.method === 'chat.update' && JSON.stringify(call.args.blocks).includes('Tickets sold'),
      ),
    );
  } finally {
    await rig.close();
  }
  before = await snapshot(redis.url);
  expect(Object.keys(before).length).toBeGreaterThan(5);
}, 60_000);

describe('start-up rules', () => {
  it('refuses a signing secret without a bot token, naming SLACK_BOT_TOKEN, and touches no Redis key', async () => {
    const main = await startMain({
      SLACK_SIGNING_SECRET: 'a-signing-secret-0123456789',
      STORE_URL: redis.url,
      TICKETING_API_URL: 'simulator',
    });
    const code = await main.exited;
    expect(code).not.toBe(0);
    expect(main.output().stderr).toMatch(/SLACK_BOT_TOKEN: required for the HTTP receiver/);
    expect(main.output().stdout).not.toMatch(/sandbox/);
    await expectUnchanged();
  });

  it('refuses Slack variables that came through blank rather than starting the sandbox next to the real service', async () => {
    const main = await startMain({
      SLACK_BOT_TOKEN: '',
      SLACK_SIGNING_SECRET: ' ',
      STORE_URL: redis.url,
      TICKETING_API_URL: 'http://127.0.0.1:9/',
      TICKETING_API_KEY: 'a-real-looking-key',
    });
    expect(await main.exited).not.toBe(0);
    expect(main.output().stderr).toMatch(/SLACK_BOT_TOKEN: required for the HTTP receiver \(it is set but empty\)/);
    expect(main.output().stdout).not.toMatch(/sandbox/);
    await expectUnchanged();
  });

  it('refuses an app token without a bot token the same way', async () => {
    const main = await startMain({
      SLACK_APP_TOKEN: 'xapp-1-not-real',
      STORE_URL: redis.url,
      TICKETING_API_URL: 'simulator',
    });
    expect(await main.exited).not.toBe(0);
    expect(main.output().stderr).toMatch(/SLACK_BOT_TOKEN: required for Socket Mode/);
    await expectUnchanged();
  });

  it('runs the sandbox with no Slack variable on a store of its own, saying so first, even with STORE_URL set', async () => {
    const main = await startMain({ STORE_URL: redis.url, HOST: '127.0.0.1' });
    try {
      await main.waitFor(/open http:\/\/127\.0\.0\.1:\d+/);
      const firstLine = JSON.parse(main.output().stderr.split('\n')[0] ?? '{}') as { msg?: string };
      expect(firstLine.msg).toMatch(/^Starting the local Slack sandbox .*its store in memory/);
      expect(main.output().stderr).not.toContain(redis.url);
      // Nothing named a service: the simulator is the default, and the log says it in those words.
      await main.waitFor(/TICKETING_API_URL is not set: the built-in simulator serves demo data/);
      // The sandbox's catch-up and catalog ran; the deployment's Redis saw none of it.
      await main.waitFor(/"Store opened"/);
      await expectUnchanged();
    } finally {
      main.child.kill('SIGTERM');
      await main.exited;
    }
    await expectUnchanged();
  });
});
