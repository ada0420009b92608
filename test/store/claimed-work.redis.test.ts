import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { ClaimedWork } from '../../src/store/claimed-work.js';
import { openStore } from '../../src/store/open-store.js';
import type { StoreHandle } from '../../src/store/store-handle.js';
import { type RedisServer, startRedis } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/wait-for.js';

const LEASE = 60_000;
let redis: RedisServer | undefined;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

let namespaces = 0;
const stores: [string, () => Promise<StoreHandle>][] = [
  ['SQLite', () => openStore('sqlite://:memory:')],
  ['Redis', () => openStore((redis as RedisServer).url, { logger: silentLogger, namespace: `claimed${++namespaces}` })],
];

/** Two owners (two replicas) of the same claims, on one clock the test moves. */
async function pair(open: () => Promise<StoreHandle>) {
  const opened = await open();
  const clock = { t: 1_000_000, now: () => clock.t };
  const make = (owner: string) =>
    new ClaimedWork({
      claims: opened.claims,
      owner,
      leaseMs: LEASE,
      failedRetryMs: 10_000,
      clock,
      logger: silentLogger,
    });
  return { opened, clock, a: make('replica-a'), b: make('replica-b') };
}

describe.each(stores)('ClaimedWork on %s (one contract for watches, digests and the catalog)', (_, open) => {
  it('is mine first, busy for others within the lease, done once settled', async () => {
    const { opened, clock, a, b } = await pair(open);
    try {
      expect((await a.claim('work:1')).kind).toBe('mine');
      expect((await b.claim('work:1')).kind).toBe('busy');
      clock.t += LEASE - 1;
      expect((await b.claim('work:1')).kind).toBe('busy');
      await a.settle('work:1', 'done');
      expect((await b.claim('work:1')).kind).toBe('done');
      expect((await a.claim('work:1')).kind).toBe('done');
    } finally {
      await opened.close();
    }
  });

  it('is taken over once a dead owner’s lease ran out, saying what it took over, by one replica only', async () => {
    const { opened, clock, a, b } = await pair(open);
    try {
      await a.claim('work:2');
      clock.t += LEASE;
      const c = new ClaimedWork({
        claims: opened.claims,
        owner: 'replica-c',
        leaseMs: LEASE,
        clock,
        logger: silentLogger,
      });
      const [first, second] = await Promise.all([b.claim('work:2'), c.claim('work:2')]);
      expect([first.kind, second.kind].sort()).toEqual(['busy', 'recovered']);
      const recovered = first.kind === 'recovered' ? first : second;
      expect(recovered.kind === 'recovered' && recovered.previous.owner).toBe('replica-a');
    } finally {
      await opened.close();
    }
  });

  it('leaves a failed attempt to its owner for a while, then lets another try; a released one at once', async () => {
    const { opened, clock, a, b } = await pair(open);
    try {
      await a.claim('work:3');
      await a.settle('work:3', 'failed');
      expect((await b.claim('work:3')).kind).toBe('busy');
      clock.t += 10_000;
      expect((await b.claim('work:3')).kind).toBe('recovered');
      await a.claim('work:4');
      await a.release('work:4');
      expect((await b.claim('work:4')).kind).toBe('mine');
    } finally {
      await opened.close();
    }
  });

  it('renews the claim on the clock’s own timer while the work runs, so a slow owner is never taken for a dead one', async () => {
    const opened = await open();
    try {
      // A clock the test moves: its timer ticks when the test says, not when the wall clock does.
      const ticks: (() => void)[] = [];
      const clock = {
        t: 1_000_000,
        now: () => clock.t,
        every: (_ms: number, tick: () => void) => {
          ticks.push(tick);
          return { stop: () => ticks.splice(ticks.indexOf(tick), 1) };
        },
      };
      const slow = new ClaimedWork({ claims: opened.claims, owner: 'slow', leaseMs: 200, clock, logger: silentLogger });
      const other = new ClaimedWork({
        claims: opened.claims,
        owner: 'other',
        leaseMs: 200,
        clock,
        logger: silentLogger,
      });
      await slow.claim('work:5');
      let finish: () => void = () => undefined;
      const working = slow.holding('work:5', () => new Promise<void>((resolve) => (finish = resolve)));
      // Time passes past the lease; the renewal (every half lease) stamps the claim with the new time.
      await waitFor(() => ticks.length === 1 || undefined, { what: 'the renewal timer' });
      clock.t += 10_000;
      for (const tick of ticks) tick();
      await waitFor(async () => (await opened.claims.get('work:5'))?.at === clock.t, { what: 'a renewal' });
      expect((await other.claim('work:5')).kind).toBe('busy');
      finish();
      await working;
      expect(ticks).toHaveLength(0);
    } finally {
      await opened.close();
    }
  });

  it('forgets settled claims past one retention (SQLite by pruning, at most once an hour; Redis by expiry)', async () => {
    const opened = await open();
    if (opened.shared) {
      // Redis forgets each claim one retention after it was made: nothing is left to prune.
      const work = new ClaimedWork({
        claims: opened.claims,
        owner: 'a',
        leaseMs: LEASE,
        clock: { now: () => 0 },
        logger: silentLogger,
      });
      expect(await work.prune()).toBe(0);
      await opened.close();
      return;
    }
    try {
      const clock = { t: 1_000_000, now: () => clock.t };
      const work = new ClaimedWork({
        claims: opened.claims,
        owner: 'a',
        leaseMs: LEASE,
        retentionMs: 1_000,
        clock,
        logger: silentLogger,
      });
      await work.claim('work:6');
      await work.settle('work:6', 'done');
      clock.t += 2_000;
      expect(await work.prune()).toBe(1);
      await work.claim('work:7');
      await work.settle('work:7', 'done');
      clock.t += 2_000;
      expect(await work.prune()).toBe(0);
      clock.t += 3_600_000;
      expect(await work.prune()).toBe(1);
    } finally {
      await opened.close();
    }
  });
});
