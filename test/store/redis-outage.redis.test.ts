import { Redis } from 'ioredis';
import { afterAll, expect, it, onTestFinished } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { StoreError } from '../../src/store/key-value-store.js';
import { openStore } from '../../src/store/open-store.js';
import { startRedisRelay } from '../helpers/redis-relay.js';
import { type RedisServer, startRedis } from '../helpers/redis-server.js';
import { sleep } from '../helpers/wait-for.js';

/*
 * Redis going away under a running replica (a failover, a restart) and coming back where it was.
 * The start gives up on a Redis that is not there within seconds; a running store must not.
 */

const servers: RedisServer[] = [];
const logged = (lines: string[]) => lines.map((line) => JSON.parse(line).msg as string);

/** A store on `server` (or on `url`, in front of it), its log lines kept; closed with the test. */
async function storeOn(
  server: RedisServer,
  db: number,
  onLine: (line: string) => void = () => undefined,
  url = server.url,
) {
  const lines: string[] = [];
  const store = await openStore(`${url}/${db}`, {
    namespace: `outage${Date.now()}`,
    logger: createLogger({
      write: (line) => {
        lines.push(line);
        onLine(line);
      },
    }),
  });
  onTestFinished(() => store.close());
  return { store, lines };
}

/**
 * As an operator would from another connection (`url`, with whatever password the server has
 * now): the password set to `password` (none when empty), then, unless `keepConnections`, every
 * other connection dropped, so the store's reconnect meets the change.
 */
async function administer(url: string, change: { password?: string; keepConnections?: boolean }): Promise<void> {
  const admin = new Redis(url);
  try {
    if (change.password !== undefined) await admin.call('CONFIG', 'SET', 'requirepass', change.password);
    if (!change.keepConnections) await admin.call('CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
  } finally {
    admin.disconnect();
  }
}
afterAll(async () => {
  for (const server of servers) await server.stop();
});

it('fails store commands while Redis is away, and works again without help once it is back', async () => {
  const server = await startRedis();
  servers.push(server);
  // A relay that stays up (a Redis stopped and started again on its port could find another
  // test's server there): its far end goes away and comes back.
  const relay = await startRedisRelay(server.port);
  onTestFinished(() => relay.close());
  const { store, lines } = await storeOn(server, 3, undefined, `redis://127.0.0.1:${relay.port}`);
  expect(await store.claims.claim('digest:C1:before', 'a', 1)).toBe(true);
  relay.down();

  // Refused, as a store failure, once a command has waited a second for Redis to come back:
  // nothing waits for ever on a Redis that may not return.
  const refused = await Promise.all([
    store.claims.get('digest:C1:before').catch((error: unknown) => error),
    store.keyValue.get('anything').catch((error: unknown) => error),
    store.shared?.runScript('return 1', [], []).catch((error: unknown) => error),
  ]);
  for (const error of refused) expect(error).toBeInstanceOf(StoreError);

  // Away for longer than the start's three reconnects (1.4 s), after which the client used to
  // close for good: claims, locks and the budget's scripts then failed until something read a value.
  // Wall time, as the client's reconnects run on it.
  await sleep(2_500);
  relay.up();

  // Back, with nothing but claims and scripts asked of it (no value read to wake the client).
  await expect
    .poll(() => store.claims.claim('digest:C1:after', 'a', 2).catch(() => 'failed'), { timeout: 10_000 })
    .toBe(true);
  expect(await store.shared?.runScript('return 7', [], [])).toBe(7);
  await store.keyValue.set('k', 'v');
  expect(await store.keyValue.get('k')).toBe('v');

  // One line for the outage and one for the return, however many reconnects came between.
  expect(logged(lines).filter((msg) => msg.startsWith('Lost Redis'))).toHaveLength(1);
  expect(logged(lines).filter((msg) => msg === 'Redis is back')).toHaveLength(1);
}, 30_000);

it('sends a command asked for while it reconnects once it is back, not failing it (a budget settle, a lock release)', async () => {
  const server = await startRedis();
  servers.push(server);
  // Asked for the moment the connection is found lost (its log line is written then, before the
  // reconnect starts), so surely between the drop and the reconnect.
  let asked: Promise<unknown> | undefined;
  const { store } = await storeOn(server, 5, (line) => {
    if (!asked && line.includes('Lost Redis')) asked = store.shared?.runScript('return 3', [], []).catch((e) => e);
  });
  // The connection drops (an idle timeout, a proxy restarting); Redis itself stays.
  await administer(server.url, {});
  await expect.poll(() => asked !== undefined).toBe(true);
  // It waited for the reconnect and was sent.
  expect(await asked).toBe(3);
  expect(await store.claims.claim('digest:C1:blip', 'a', 1)).toBe(true);
});

it('after a refusal no reconnect mends, claims and scripts connect again by themselves, as values do', async () => {
  const server = await startRedis();
  servers.push(server);
  const { store, lines } = await storeOn(server, 6);
  await administer(server.url, { password: 'rotated-password' });
  await expect.poll(() => logged(lines).filter((msg) => msg.startsWith('Redis refused'))).toHaveLength(1);
  // Fixed on the server's side (the rotation undone): no value read, and claims work again.
  await administer(server.url.replace('redis://', 'redis://:rotated-password@'), {
    password: '',
    keepConnections: true,
  });
  await expect.poll(() => store.claims.claim('digest:C1:fixed', 'a', 1).catch(() => 'failed')).toBe(true);
  expect(await store.shared?.runScript('return 9', [], [])).toBe(9);
  // Said once, not at each use that was refused after it.
  expect(logged(lines).filter((msg) => msg.startsWith('Redis refused'))).toHaveLength(1);
});

it('after a refusal no reconnect mends, a use connects as a start does: with Redis then gone, it fails in seconds', async () => {
  const server = await startRedis();
  servers.push(server);
  const { store, lines } = await storeOn(server, 4);
  await administer(server.url, { password: 'rotated-password' });
  await expect.poll(() => logged(lines).some((msg) => msg.startsWith('Redis refused'))).toBe(true);
  // Then Redis goes too. A use connects afresh, as a start would: it gives up after three tries
  // instead of waiting the outage out with the command held (as a connection that had answered
  // since would).
  await server.stop();
  servers.splice(servers.indexOf(server), 1);
  const started = Date.now();
  await expect(store.keyValue.get('k')).rejects.toBeInstanceOf(StoreError);
  await expect(store.claims.get('k')).rejects.toBeInstanceOf(StoreError);
  expect(Date.now() - started).toBeLessThan(10_000);
}, 30_000);

it('closes at once while Redis is away, with a command still waiting for it', async () => {
  const server = await startRedis();
  servers.push(server);
  const { store, lines } = await storeOn(server, 7);
  await server.stop();
  servers.splice(servers.indexOf(server), 1);
  await expect.poll(() => logged(lines).some((msg) => msg.startsWith('Lost Redis'))).toBe(true);
  // A budget settle, say, asked for just before the SIGTERM: it waits up to a second for Redis.
  const waiting = store.claims.get('k').catch((error: unknown) => error);
  // Time for it to be queued in the client (whose own wait is a second), which nothing shows: wall time.
  await sleep(50);
  // A graceful close waited for its answer, which never comes (8 s and more), past the 5 s a
  // closing connection is given.
  const closed = await Promise.race([
    store.close().then(() => 'closed'),
    sleep(3_000).then(() => 'still closing after 3 s'),
  ]);
  expect(closed).toBe('closed');
  expect(await waiting).toBeInstanceOf(StoreError);
});

it('takes a password sent to a Redis that has none as a refusal, saying so, rather than retrying it for ever', async () => {
  const server = await startRedis({ password: 'first-password' });
  servers.push(server);
  const { store, lines } = await storeOn(server, 8);
  // The server's password is removed; the replica still sends one.
  await administer(server.url, { password: '' });
  await expect.poll(() => logged(lines).filter((msg) => msg.startsWith('Redis refused'))).toHaveLength(1);
  await expect(store.claims.get('k')).rejects.toBeInstanceOf(StoreError);
});
