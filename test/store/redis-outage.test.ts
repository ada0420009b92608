import { Redis } from 'ioredis';
import { afterAll, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { StoreError } from '../../src/store/key-value-store.js';
import { openStore } from '../../src/store/open-store.js';
import { type RedisServer, startRedis } from '../helpers/redis-server.js';

/*
 * Redis going away under a running replica (a failover, a restart) and coming back where it was.
 * The start gives up on a Redis that is not there within seconds; a running store must not.
 */

const servers: RedisServer[] = [];
afterAll(async () => {
  for (const server of servers) await server.stop();
});

it('fails store commands at once while Redis is away, and works again without help once it is back', async () => {
  const first = await startRedis();
  servers.push(first);
  const lines: string[] = [];
  const store = await openStore(`${first.url}/3`, {
    namespace: `outage${Date.now()}`,
    logger: createLogger({ write: (line) => lines.push(line) }),
  });
  try {
    expect(await store.claims.claim('digest:C1:before', 'a', 1)).toBe(true);
    await first.stop();
    servers.splice(servers.indexOf(first), 1);

    // Refused, as a store failure: nothing waits in a queue for a Redis that may not return.
    const refused = await store.claims.get('digest:C1:before').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(StoreError);
    await expect(store.keyValue.get('anything')).rejects.toBeInstanceOf(StoreError);
    await expect(store.shared?.runScript('return 1', [], [])).rejects.toBeInstanceOf(StoreError);

    // Away for longer than the start's three reconnects (1.4 s), after which the client used to
    // close for good: claims, locks and the budget's scripts then failed until something read a value.
    // Wall time, as the client's reconnects run on it.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    servers.push(await startRedis({ port: first.port }));

    // Back, with nothing but claims and scripts asked of it (no value read to wake the client).
    await expect
      .poll(() => store.claims.claim('digest:C1:after', 'a', 2).catch(() => 'failed'), { timeout: 10_000 })
      .toBe(true);
    expect(await store.shared?.runScript('return 7', [], [])).toBe(7);
    await store.keyValue.set('k', 'v');
    expect(await store.keyValue.get('k')).toBe('v');

    // One line for the outage and one for the return, however many reconnects came between.
    const said = lines.map((line) => JSON.parse(line).msg as string);
    expect(said.filter((msg) => msg.startsWith('Lost Redis'))).toHaveLength(1);
    expect(said.filter((msg) => msg === 'Redis is back')).toHaveLength(1);
  } finally {
    await store.close();
  }
}, 30_000);

it('after a refusal no reconnect mends, a use connects as a start does: with Redis then gone, it fails in seconds', async () => {
  const server = await startRedis();
  servers.push(server);
  const store = await openStore(`${server.url}/4`, { namespace: `refused${Date.now()}` });
  try {
    // The password rotated under the replica: its reconnect is refused, and it stops trying.
    const admin = new Redis(server.url);
    await admin.call('CONFIG', 'SET', 'requirepass', 'rotated-password');
    await admin.call('CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
    admin.disconnect();
    // Closed, not reconnecting (a command then is refused as closed, not as offline).
    const refusal = () =>
      store.claims.get('k').then(
        () => 'read',
        (error: unknown) => String((error as { cause?: { message?: string } }).cause?.message),
      );
    await expect.poll(refusal).toBe('The client is closed');
    // Then Redis goes too. A use connects afresh, as a start would: it gives up after three tries
    // instead of waiting the outage out with the command held (as a connection that had answered
    // since would).
    await server.stop();
    servers.splice(servers.indexOf(server), 1);
    const started = Date.now();
    await expect(store.keyValue.get('k')).rejects.toBeInstanceOf(StoreError);
    expect(Date.now() - started).toBeLessThan(10_000);
  } finally {
    await store.close();
  }
}, 30_000);
