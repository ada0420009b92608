import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { ActivityStore } from '../../src/store/activity-store.js';
import { LockBusy } from '../../src/store/key-value-store.js';
import { openStore } from '../../src/store/open-store.js';
import type { StoreHandle } from '../../src/store/store-handle.js';
import { ManualClock } from '../helpers/clocks.js';
import { type RedisServer, startRedis } from '../helpers/redis-server.js';
import { sleep, waitFor } from '../helpers/wait-for.js';

let redis: RedisServer;
let dir: string;
let counter = 0;
beforeAll(async () => {
  redis = await startRedis();
  dir = await mkdtemp(join(tmpdir(), 'eventops-contract-'));
});
afterAll(async () => {
  await redis?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** Two handles on one store, as two replicas (or a restart) would hold. */
const backends: [string, () => string][] = [
  ['SQLite', () => `sqlite://${join(dir, `store-${++counter}.sqlite`)}`],
  ['Redis', () => `${redis.url}/${++counter % 16}`],
];

/**
 * Work that takes `ms` (not a wait for anything: time for another holder to get in, were it not
 * kept out), counting how many ran at once; it returns 'done'. `inside`: how many run now.
 */
function overlapCounter(defaultMs = 20) {
  let inside = 0;
  let most = 0;
  const work = async (ms = defaultMs) => {
    inside += 1;
    most = Math.max(most, inside);
    await sleep(ms);
    inside -= 1;
    return 'done';
  };
  return { work, most: () => most, inside: () => inside };
}

/** Two handles on one Redis database whose locks live `lockMs` unless renewed; closed after the test. */
async function lockHandles(lockMs: number): Promise<[StoreHandle, StoreHandle]> {
  const location = `${redis.url}/${++counter % 16}`;
  const handles: [StoreHandle, StoreHandle] = [
    await openStore(location, { lockMs }),
    await openStore(location, { lockMs }),
  ];
  onTestFinished(async () => {
    for (const handle of handles) await handle.close();
  });
  return handles;
}

describe.each(backends)('the store contract on %s', (_name, url) => {
  async function twoHandles(): Promise<[StoreHandle, StoreHandle]> {
    const location = url();
    return [await openStore(location), await openStore(location)];
  }

  it('claims a key once, settles it, takes over a failed claim once, and releases only its own', async () => {
    const [a, b] = await twoHandles();
    const key = `digest:C1:${Date.now()}`;
    expect(await a.claims.claim(key, 'one', 1)).toBe(true);
    expect(await b.claims.claim(key, 'two', 2)).toBe(false);
    expect(await b.claims.get(key)).toEqual({ owner: 'one', state: 'claimed', at: 1 });
    await b.claims.settle(key, 'two', 'done', 3); // not the owner: nothing changes
    await a.claims.settle(key, 'one', 'failed', 4);
    const failed = await b.claims.get(key);
    expect(failed).toEqual({ owner: 'one', state: 'failed', at: 4 });
    const takeovers = await Promise.all([
      a.claims.takeOver(key, failed as never, 'three', 5),
      b.claims.takeOver(key, failed as never, 'four', 5),
    ]);
    expect(takeovers.filter(Boolean)).toHaveLength(1);
    const winner = takeovers[0] ? 'three' : 'four';
    await a.claims.release(key, 'someone-else');
    expect((await a.claims.get(key))?.owner).toBe(winner);
    await a.claims.release(key, winner);
    expect(await b.claims.get(key)).toBeUndefined();
    await a.close();
    await b.close();
  });

  it('keeps values, and lets two handles append to one list at once without losing any', async () => {
    const [a, b] = await twoHandles();
    await a.keyValue.set('greeting', { hello: 'world' });
    expect(await b.keyValue.get('greeting')).toEqual({ hello: 'world' });
    const first = new ActivityStore(a.keyValue);
    const second = new ActivityStore(b.keyValue);
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 ? first : second).recordReport({ at: String(i), userId: 'U1', eventId: `evt_${i}` }),
      ),
    );
    expect((await first.recent('U1')).reports).toHaveLength(10);
    expect(await b.keyValue.delete('greeting')).toBe(true);
    expect(await a.keyValue.get('greeting')).toBeUndefined();
    await a.close();
    await b.close();
  });

  it('runs exclusive work on one key from two handles in turn, never both at once', async () => {
    const [a, b] = await twoHandles();
    const { work, most } = overlapCounter(20);
    const each = () => work();
    await Promise.all(
      Array.from({ length: 6 }, (_, i) => (i % 2 ? a : b).keyValue.exclusive('report-message:m1', each)),
    );
    expect(most()).toBe(1);
    await a.close();
    await b.close();
  });
});

describe('the Redis lock', () => {
  it('stays held past its life while its holder works, and tells a handle that will not wait that it is busy', async () => {
    // A lock that lives 1 s unless renewed (every third of that), held by work that outlasts it three
    // times and a half. A life of 300 ms was renewed every 100 ms: a process stalled 200 ms on a busy
    // machine let it lapse, and the test saw two holders for a reason of its own.
    const [a, b] = await lockHandles(1_000);
    const { work, most, inside } = overlapCounter();
    const holding = a.keyValue.exclusive('watch:turn', () => work(3_500));
    await waitFor(() => inside() === 1, { what: 'the first handle to hold the lock' });
    await expect(b.keyValue.exclusive('watch:turn', () => work(20), { waitMs: 0 })).rejects.toBeInstanceOf(LockBusy);
    const waiting = b.keyValue.exclusive('watch:turn', () => work(20), { waitMs: 8_000 });
    expect(await Promise.all([holding, waiting])).toEqual(['done', 'done']);
    expect(most()).toBe(1);
  });

  it('is renewed on the clock passed in, every third of its life, and for ten lives at most', async () => {
    const clock = new ManualClock(Date.now());
    const handle = await openStore(`${redis.url}/${++counter % 16}`, { lockMs: 60_000, clock });
    onTestFinished(() => handle.close());
    const shared = handle.shared;
    if (!shared) throw new Error('a Redis store shares its Redis');
    const lockKey = ['eventops:lock:watch:turn'];
    const ttl = async () => Number(await shared.runScript("return redis.call('PTTL', KEYS[1])", lockKey, []));
    // Stands for time passing in Redis: the lock is left with 5 s unless it is renewed.
    const wearDown = () => shared.runScript("return redis.call('PEXPIRE', KEYS[1], ARGV[1])", lockKey, ['5000']);
    let release = () => {};
    const held = new Promise<void>((inside) => {
      void handle.keyValue.exclusive(
        'watch:turn',
        () =>
          new Promise<void>((done) => {
            release = done;
            inside();
          }),
      );
    });
    await held;
    await wearDown();
    await clock.advance(19_000);
    expect(await ttl()).toBeLessThanOrEqual(5_000);
    await clock.advance(1_000);
    await vi.waitFor(async () => expect(await ttl()).toBeGreaterThan(50_000));
    // Ten lives on, the work is taken for stuck: the lock is left to lapse.
    await clock.advance(10 * 60_000);
    await wearDown();
    await clock.advance(60_000);
    expect(await ttl()).toBeLessThanOrEqual(5_000);
    release();
    await vi.waitFor(async () => expect(await ttl()).toBe(-2));
  });

  it('is no longer renewed after ten lives: work stuck for good does not hold every replica off', async () => {
    // A 50 ms lock: renewed for 500 ms at most, under work that takes 1 s.
    const [a, b] = await lockHandles(50);
    let firstIn = false;
    let firstDone = false;
    const stuck = a.keyValue.exclusive('watch:turn', async () => {
      firstIn = true;
      // Work that outlasts ten lives (not a wait for anything).
      await sleep(1_000);
      firstDone = true;
    });
    await waitFor(() => firstIn, { what: 'the first handle to hold the lock' });
    const secondInWhileFirstRan = await b.keyValue.exclusive('watch:turn', async () => !firstDone, { waitMs: 900 });
    expect(secondInWhileFirstRan).toBe(true);
    await stuck;
  });

  it('lives no longer than the store says, whatever one hold asks for', async () => {
    // Locks of 50 ms; this hold asks for a minute. Were it granted, the stuck work below would keep
    // the second handle out for the whole minute (ten lives of it).
    const [a, b] = await lockHandles(50);
    let firstIn = false;
    let firstDone = false;
    const stuck = a.keyValue.exclusive(
      'watch:turn',
      async () => {
        firstIn = true;
        // Work that outlasts ten lives (not a wait for anything).
        await sleep(1_000);
        firstDone = true;
      },
      { lockMs: 60_000 },
    );
    await waitFor(() => firstIn, { what: 'the first handle to hold the lock' });
    const secondInWhileFirstRan = await b.keyValue.exclusive('watch:turn', async () => !firstDone, { waitMs: 900 });
    expect(secondInWhileFirstRan).toBe(true);
    await stuck;
    await expect(a.keyValue.exclusive('watch:turn', async () => 'ran', { lockMs: 0 })).rejects.toBeInstanceOf(
      RangeError,
    );
  });
});
