import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/server.js';
import { type FakeSlack, startFakeSlack } from '../helpers/fake-slack.js';
import { type RedisServer, startRedis } from '../helpers/redis-server.js';
import { type Replica, startReplica } from '../helpers/replicas.js';
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

const dir = mkdtempSync(join(tmpdir(), 'eventops-tls-'));
const cert = { certFile: join(dir, 'cert.pem'), keyFile: join(dir, 'key.pem') };
// A throwaway certificate for 127.0.0.1, made here: nothing of it outlives the test.
execFileSync(
  'openssl',
  [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=127.0.0.1',
  ].concat(['-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', cert.keyFile, '-out', cert.certFile]),
  { stdio: 'ignore' },
);

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
    20_000,
  );
}

/**
 * A loopback pass-through to `port` that counts the connections made through it: how often the
 * bot tried, whatever the server makes of them (Redis does not count a failed TLS handshake).
 */
async function countingProxy(port: number): Promise<{ port: number; connections: () => number }> {
  let connections = 0;
  const proxy = createServer((client) => {
    connections += 1;
    const upstream = connect(port, '127.0.0.1');
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  started.push({ close: () => new Promise((resolve) => proxy.close(resolve)) });
  return { port: (proxy.address() as AddressInfo).port, connections: () => connections };
}

describe('Redis over TLS', () => {
  it('keeps keys, scripts and the report queue on rediss:// with a CA from NODE_EXTRA_CA_CERTS', async () => {
    const { redis, sim, slack, env } = await rig({ tls: cert });
    expect(redis.url).toMatch(/^rediss:\/\//);
    const bot = await replica('tls', env(redis.url, { NODE_EXTRA_CA_CERTS: cert.certFile }));
    await reportThrough(bot, slack, sim.catalog.events[0]?.id as string);
    const ready = await fetch(`${bot.url}/readyz`);
    expect(ready.status).toBe(200);
  });

  it('refuses to start when the server’s certificate is not trusted, saying where it tried', async () => {
    const { redis, env } = await rig({ tls: cert });
    const proxy = await countingProxy(redis.port);
    const error = await replica('untrusted', env(`rediss://127.0.0.1:${proxy.port}`)).catch(
      (caught: unknown) => caught,
    );
    expect(String(error)).toMatch(/exited \(\d+\)/);
    expect(String(error)).toContain(`rediss://127.0.0.1:${proxy.port}/0`);
    // No retry can make the certificate trusted: the start fails on the first refusal, not after three more.
    expect(proxy.connections()).toBe(1);
  });
});

describe('a Redis password holding @, : and %', () => {
  it.each([
    ['raw', (port: number) => `redis://:${PASSWORD}@127.0.0.1:${port}`],
    ['percent-encoded', (port: number) => `redis://:${encodeURIComponent(PASSWORD)}@127.0.0.1:${port}`],
  ])('is read right %s and never appears in a log line, an error or a metric', async (_form, url) => {
    const { redis, sim, slack, env } = await rig({ password: PASSWORD });
    const bot = await replica('password', env(url(redis.port), { LOG_LEVEL: 'debug' }));
    await reportThrough(bot, slack, sim.catalog.events[1]?.id as string);
    const metrics = await (await fetch(`${bot.url}/metrics`)).text();
    expect(metrics).toContain('eventops_');
    await bot.stop();
    const seen = `${JSON.stringify(bot.logs)}\n${metrics}\n${JSON.stringify(slack.calls)}`;
    for (const piece of PIECES) expect(seen, piece).not.toContain(piece);
  });

  it('a wrong password fails the start with a clear message that holds no part of the password', async () => {
    const { redis, env } = await rig({ password: PASSWORD });
    const proxy = await countingProxy(redis.port);
    const wrong = `redis://:${PASSWORD.replace('s3cr', 'w0ng')}@127.0.0.1:${proxy.port}`;
    const error = String(await replica('wrong', env(wrong)).catch((caught: unknown) => caught));
    expect(error).toMatch(/could not reach Redis at redis:\/\/127\.0\.0\.1:\d+\/0/);
    for (const piece of ['w0ng', 'Pa%ss', 't:Pa', 'ss@']) expect(error, piece).not.toContain(piece);
    // A refused password stays refused: tried once, not three more times over 1.4 s.
    expect(proxy.connections()).toBe(1);
  });

  it('a password changed under a running replica turns /readyz to 503, without the password in a log line', async () => {
    const { redis, env } = await rig({ password: PASSWORD });
    const bot = await replica('rotated', env(`redis://:${encodeURIComponent(PASSWORD)}@127.0.0.1:${redis.port}`));
    await expect
      .poll(async () => (await fetch(`${bot.url}/readyz`)).status, { timeout: 10_000, interval: 100 })
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
      .poll(async () => (await fetch(`${bot.url}/readyz`)).status, { timeout: 10_000, interval: 100 })
      .toBe(503);
    const ready = await (await fetch(`${bot.url}/readyz`)).text();
    expect(ready).toContain('failing');
    await bot.stop();
    const seen = `${JSON.stringify(bot.logs)}\n${ready}`;
    for (const piece of [...PIECES, 'rotated-w0ng']) expect(seen, piece).not.toContain(piece);
  });
});
