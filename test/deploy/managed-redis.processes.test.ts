import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/server.js';
import { type FakeSlack, startFakeSlack } from '../helpers/fake-slack.js';
import { fakeSlackToken } from '../helpers/fake-tokens.js';
import { type RedisRelayOptions, startRedisRelay } from '../helpers/redis-relay.js';
import { type RedisServer, startRedis, throwawayCertificate } from '../helpers/redis-server.js';
import { type Replica, startReplica } from '../helpers/replicas.js';
import { startScript } from '../helpers/script-process.js';
import { commandBody, postSigned } from '../helpers/slack-requests.js';

/*
 * Redis as managed services ship it: TLS only (rediss://, a certificate the system does not know,
 * trusted through NODE_EXTRA_CA_CERTS) and a password full of URL syntax. The bot runs as its own
 * process (`src/main.ts`), since Node reads NODE_EXTRA_CA_CERTS only when a process starts.
 */

const PASSWORD = 's3cr@t:Pa%ss';
/** Every piece of the password that would give it away. */
const PIECES = ['s3cr', 'Pa%ss', 'Pa%25ss', 't:Pa', encodeURIComponent(PASSWORD)];
const SECRET = 'managed-redis-signing-secret';
/**
 * How long one awaited condition may take: generous for a machine whose cores are all taken (the
 * bot process, this process's Slack and service and redis-server all share them), yet a hang still
 * ends the test.
 */
const BOUND_MS = 120_000;
/** The bound of a test that starts a bot: its start, a report and its stop in a row. */
const TEST_MS = 300_000;

const dir = mkdtempSync(join(tmpdir(), 'eventops-tls-'));
// A throwaway certificate for 127.0.0.1, made here: nothing of it outlives the test.
const cert = throwawayCertificate(dir);

const started: { close(): Promise<unknown> }[] = [];
afterAll(async () => {
  for (const thing of started.reverse()) await thing.close();
  rmSync(dir, { recursive: true, force: true });
});

async function rig(redisOptions: Parameters<typeof startRedis>[0]) {
  const redis: RedisServer = await startRedis(redisOptions);
  const sim: Simulator = await startSimulator({ anchorMs: Date.now(), eventCount: 8 });
  const slack: FakeSlack = await startFakeSlack();
  started.push({ close: () => redis.stop() }, sim, slack);
  const env = (storeUrl: string, extra: Record<string, string> = {}) => ({
    STORE_URL: storeUrl,
    TICKETING_API_URL: sim.url,
    TICKETING_API_KEY: sim.apiKeys[0] as string,
    SLACK_API_URL: slack.apiUrl,
    ...extra,
  });
  return { redis, sim, slack, env };
}

async function replica(name: string, env: Record<string, string>): Promise<Replica> {
  const started_ = await startReplica({ name, env, signingSecret: SECRET });
  started.push({ close: () => started_.stop() });
  return started_;
}

/** A report asked through the replica and answered: the budget's scripts, keyv and BullMQ all ran. */
async function reportThrough(bot: Replica, slack: FakeSlack, eventId: string) {
  const result = await postSigned(
    `${bot.url}/slack/events`,
    SECRET,
    commandBody({ text: `report ${eventId}`, response_url: slack.responseUrl() }),
  );
  expect(result.status).toBe(200);
  await slack.waitFor(
    () =>
      slack.calls.find(
        (call) => call.method === 'chat.update' && JSON.stringify(call.args.blocks).includes('Tickets sold'),
      ),
    BOUND_MS,
  );
}

/** A relay in front of Redis on `port` that counts the bot's tries and decides when a refusal reaches it. */
async function relayTo(port: number, options: RedisRelayOptions = {}) {
  const relay = await startRedisRelay(port, options);
  started.push(relay);
  return relay;
}

/**
 * `src/main.ts` started as a replica is, expected to refuse: its exit code and its whole standard
 * error (not a tail), with its plain lines (the operator's, not the log's JSON) apart.
 */
async function refusedStart(name: string, env: Record<string, string>) {
  const main = await startScript('src/main.ts', {
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    SLACK_BOT_TOKEN: fakeSlackToken('b', name),
    SLACK_SIGNING_SECRET: SECRET,
    ...env,
  });
  started.push({ close: async () => main.child.kill('SIGKILL') });
  const code = await main.exited;
  const { stderr } = main.output();
  return { code, stderr, plainLines: stderr.split('\n').filter((line) => line && !line.startsWith('{')) };
}

/** Longer than a command's wait for the connection (1 s): held this long, a refusal comes after the first read would have given up. */
const LATE_MS = 1_500;

describe('Redis over TLS', () => {
  it(
    'keeps keys, scripts and the report queue on rediss:// with a CA from NODE_EXTRA_CA_CERTS',
    async () => {
      const { redis, sim, slack, env } = await rig({ tls: cert });
      expect(redis.url).toMatch(/^rediss:\/\//);
      const bot = await replica('tls', env(redis.url, { NODE_EXTRA_CA_CERTS: cert.certFile }));
      await reportThrough(bot, slack, sim.catalog.events[0]?.id as string);
      const ready = await fetch(`${bot.url}/readyz`);
      expect(ready.status).toBe(200);
    },
    TEST_MS,
  );

  it.each([
    ['at once', 0],
    ['after the first read’s 1 s wait', LATE_MS],
  ])(
    'refuses to start when the server’s certificate is not trusted, naming it, when the handshake ends %s',
    async (_when, answerDelayMs) => {
      const { redis, env } = await rig({ tls: cert });
      const relay = await relayTo(redis.port, { answerDelayMs });
      const start = await refusedStart('untrusted', env(`rediss://127.0.0.1:${relay.port}`));
      expect(start.code).toBe(2);
      expect(start.plainLines).toEqual([
        `STORE_URL: Redis at rediss://127.0.0.1:${relay.port}/0 presented a TLS certificate this process does not trust (DEPTH_ZERO_SELF_SIGNED_CERT); add the CA that signed it to NODE_EXTRA_CA_CERTS`,
      ]);
      // Nothing of a read that did not happen, and no stack trace for the operator to dig through.
      for (const noise of ['health:probe', 'not connected', '    at '])
        expect(start.stderr, noise).not.toContain(noise);
      // No retry can make the certificate trusted: the start fails on the first refusal, not after three more.
      expect(relay.connections()).toBe(1);
    },
    TEST_MS,
  );
});

describe('a Redis password holding @, : and %', () => {
  it.each([
    ['raw', (port: number) => `redis://:${PASSWORD}@127.0.0.1:${port}`],
    ['percent-encoded', (port: number) => `redis://:${encodeURIComponent(PASSWORD)}@127.0.0.1:${port}`],
  ])(
    'is read right %s and never appears in a log line, an error or a metric',
    async (_form, url) => {
      const { redis, sim, slack, env } = await rig({ password: PASSWORD });
      const bot = await replica('password', env(url(redis.port), { LOG_LEVEL: 'debug' }));
      await reportThrough(bot, slack, sim.catalog.events[1]?.id as string);
      const metrics = await (await fetch(`${bot.url}/metrics`)).text();
      expect(metrics).toContain('eventops_');
      await bot.stop();
      const seen = `${JSON.stringify(bot.logs)}\n${metrics}\n${JSON.stringify(slack.calls)}`;
      for (const piece of PIECES) expect(seen, piece).not.toContain(piece);
    },
    TEST_MS,
  );

  it.each([
    ['while it connects', false],
    ['after the first read, the password rotated as that read arrived', true],
  ])(
    'a wrong password fails the start, refused %s, with a clear message that holds no part of the password',
    async (_when, rotate) => {
      const { redis, env } = await rig({ password: PASSWORD });
      let readSeen = false;
      const relay = await relayTo(redis.port, {
        // The login succeeds; as the first read reaches Redis the operator rotates the password and
        // drops every connection: the read is lost and the reconnect refused.
        onClientData: async (chunk, connection) => {
          if (!rotate || connection !== 1 || readSeen || !chunk.includes('health:probe')) return;
          readSeen = true;
          const admin = new Redis({ host: '127.0.0.1', port: redis.port, password: PASSWORD });
          try {
            await admin.call('CONFIG', 'SET', 'requirepass', 'rotated-w0ng-password');
            await admin.call('CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
          } finally {
            admin.disconnect();
          }
        },
      });
      const url = rotate
        ? `redis://:${encodeURIComponent(PASSWORD)}@127.0.0.1:${relay.port}`
        : `redis://:${PASSWORD.replace('s3cr', 'w0ng')}@127.0.0.1:${relay.port}`;
      const start = await refusedStart('wrong', env(url));
      expect(start.code).toBe(2);
      expect(start.plainLines).toEqual([
        `STORE_URL: Redis at redis://127.0.0.1:${relay.port}/0 refused the user and password in STORE_URL (WRONGPASS)`,
      ]);
      for (const noise of ['health:probe', 'not connected', '    at '])
        expect(start.stderr, noise).not.toContain(noise);
      for (const piece of [...PIECES, 'w0ng', 'ss@']) expect(start.stderr, piece).not.toContain(piece);
      if (rotate) {
        // The order was forced: the read went out on the first connection, the refusal came on the next.
        expect(readSeen).toBe(true);
        expect(relay.connections()).toBe(2);
      } else {
        // A refused password stays refused: tried once, not three more times over 1.4 s.
        expect(relay.connections()).toBe(1);
      }
    },
    TEST_MS,
  );

  it(
    'a password changed under a running replica turns /readyz to 503, without the password in a log line',
    async () => {
      const { redis, env } = await rig({ password: PASSWORD });
      const bot = await replica('rotated', env(`redis://:${encodeURIComponent(PASSWORD)}@127.0.0.1:${redis.port}`));
      await expect
        .poll(async () => (await fetch(`${bot.url}/readyz`)).status, { timeout: BOUND_MS, interval: 100 })
        .toBe(200);
      const admin = new Redis({ host: '127.0.0.1', port: redis.port, password: PASSWORD, lazyConnect: true });
      try {
        await admin.connect();
        // The password rotated and every connection but this one dropped: each reconnect is refused.
        await admin.call('CONFIG', 'SET', 'requirepass', 'rotated-w0ng-password');
        await admin.call('CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
      } finally {
        admin.disconnect();
      }
      await expect
        .poll(async () => (await fetch(`${bot.url}/readyz`)).status, { timeout: BOUND_MS, interval: 100 })
        .toBe(503);
      const ready = await (await fetch(`${bot.url}/readyz`)).text();
      expect(ready).toContain('failing');
      await bot.stop();
      const seen = `${JSON.stringify(bot.logs)}\n${ready}`;
      for (const piece of [...PIECES, 'rotated-w0ng']) expect(seen, piece).not.toContain(piece);
    },
    TEST_MS,
  );
});
