import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { StoreError } from '../../src/store/key-value-store.js';
import { openStore } from '../../src/store/open-store.js';
import { type RedisRelayOptions, startRedisRelay } from '../helpers/redis-relay.js';
import {
  type RedisServer,
  type RedisServerOptions,
  startRedis,
  throwawayCertificate,
} from '../helpers/redis-server.js';

/*
 * A start that Redis refuses says what was refused (the certificate, the password) whenever the
 * refusal arrives: while connecting, after the first read's own 1 s wait, or on the reconnect after
 * the first read was sent (the password rotated just then). A relay in front of Redis decides when.
 */

const PASSWORD = 's3cr@t:Pa%ss';
const dir = mkdtempSync(join(tmpdir(), 'eventops-start-'));
const cert = throwawayCertificate(dir);
const servers: RedisServer[] = [];
afterAll(async () => {
  for (const server of servers) await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function redisBehindRelay(server: RedisServerOptions, relay: RedisRelayOptions = {}) {
  const redis = await startRedis(server);
  servers.push(redis);
  const relayed = await startRedisRelay(redis.port, relay);
  onTestFinished(() => relayed.close());
  return { redis, relay: relayed };
}

/** The start's failure: what `openStore` threw, and how long it took. */
async function failedOpen(url: string) {
  const started = Date.now();
  const error = await openStore(url, { namespace: 'start' }).then(
    async (store) => {
      await store.close();
      throw new Error('the store opened');
    },
    (caught: unknown) => caught as Error,
  );
  return { error, tookMs: Date.now() - started };
}

/** Longer than a command's wait for the connection (1 s): a refusal held this long comes after the first read gave up waiting, had it been sent. */
const LATE_MS = 1_500;

describe('a wrong password', () => {
  const expected = (port: number) =>
    `STORE_URL: Redis at redis://127.0.0.1:${port}/0 refused the user and password in STORE_URL (WRONGPASS)`;
  const wrongUrl = (port: number) => `redis://:${encodeURIComponent('w0ng-password')}@127.0.0.1:${port}/0`;

  it.each([
    ['at once', 0],
    ['after the first read’s 1 s wait', LATE_MS],
  ])('is named when the refusal comes %s', async (_when, answerDelayMs) => {
    const { relay } = await redisBehindRelay({ password: PASSWORD }, { answerDelayMs });
    const { error, tookMs } = await failedOpen(wrongUrl(relay.port));
    expect(error).toBeInstanceOf(StoreError);
    expect(error.message).toBe(expected(relay.port));
    expect((error as { reason?: unknown }).reason).toBe('refused_password');
    // The order was forced: the refusal came no sooner than the relay let it.
    expect(tookMs).toBeGreaterThanOrEqual(answerDelayMs);
    // Refused once, not tried three more times.
    expect(relay.connections()).toBe(1);
  });

  it('is named when the password rotates as the first read arrives, the reconnect refused after it', async () => {
    let readSeen = false;
    let adminPort = 0;
    const { redis, relay } = await redisBehindRelay(
      { password: 'right-password' },
      {
        // The first read reaches Redis on the first connection, after its login succeeded: just then
        // the operator rotates the password and drops every connection, so the read is lost and the
        // reconnect is refused.
        onClientData: async (chunk, connection) => {
          if (connection !== 1 || readSeen || !chunk.includes('health:probe')) return;
          readSeen = true;
          const admin = new Redis({ host: '127.0.0.1', port: adminPort, password: 'right-password' });
          try {
            await admin.call('CONFIG', 'SET', 'requirepass', 'rotated-password');
            await admin.call('CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
          } finally {
            admin.disconnect();
          }
        },
      },
    );
    adminPort = redis.port;
    const { error } = await failedOpen(`redis://:right-password@127.0.0.1:${relay.port}/0`);
    expect(readSeen).toBe(true);
    expect(relay.connections()).toBeGreaterThanOrEqual(2);
    expect(error.message).toBe(expected(relay.port));
    expect((error as { reason?: unknown }).reason).toBe('refused_password');
  });

  it('never holds a piece of the password it sent', async () => {
    const { relay } = await redisBehindRelay({ password: PASSWORD });
    const { error } = await failedOpen(`redis://:${encodeURIComponent(`${PASSWORD}x`)}@127.0.0.1:${relay.port}/0`);
    const seen = `${String(error)} ${JSON.stringify(error)} ${String(error.cause)}`;
    for (const piece of ['s3cr', 'Pa%ss', 't:Pa', 'ss@']) expect(seen, piece).not.toContain(piece);
  });
});

describe('a certificate this process does not trust', () => {
  it.each([
    ['at once', 0],
    ['after the first read’s 1 s wait', LATE_MS],
  ])('is named when the handshake ends %s', async (_when, answerDelayMs) => {
    const { relay } = await redisBehindRelay({ tls: cert }, { answerDelayMs });
    const { error, tookMs } = await failedOpen(`rediss://127.0.0.1:${relay.port}`);
    expect(error).toBeInstanceOf(StoreError);
    expect(error.message).toBe(
      `STORE_URL: Redis at rediss://127.0.0.1:${relay.port}/0 presented a TLS certificate this process does not trust (DEPTH_ZERO_SELF_SIGNED_CERT); add the CA that signed it to NODE_EXTRA_CA_CERTS`,
    );
    expect((error as { reason?: unknown }).reason).toBe('untrusted_certificate');
    expect(tookMs).toBeGreaterThanOrEqual(answerDelayMs);
    expect(relay.connections()).toBe(1);
  });
});

describe('a password missing or not wanted', () => {
  it('names a password Redis asks for and STORE_URL lacks, refused in answer to the first read', async () => {
    const { relay } = await redisBehindRelay({ password: PASSWORD });
    const { error } = await failedOpen(`redis://127.0.0.1:${relay.port}`);
    expect(error.message).toBe(
      `STORE_URL: Redis at redis://127.0.0.1:${relay.port}/0 asks for a password and STORE_URL gives none (NOAUTH)`,
    );
    expect((error as { reason?: unknown }).reason).toBe('password_required');
  });

  it('names a password STORE_URL gives to a Redis that has none', async () => {
    const { relay } = await redisBehindRelay({});
    const { error } = await failedOpen(`redis://:unwanted-password@127.0.0.1:${relay.port}`);
    expect(error.message).toBe(
      `STORE_URL: Redis at redis://127.0.0.1:${relay.port}/0 has no password, but STORE_URL gives one; remove it from the URL`,
    );
    expect((error as { reason?: unknown }).reason).toBe('no_password_set');
  });
});
