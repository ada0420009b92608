import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SalesHistory, thinned } from '../../src/history/sales-history.js';
import { salesPointOf } from '../../src/history/sales-point.js';
import { silentLogger } from '../../src/logger.js';
import { openStore } from '../../src/store/open-store.js';
import type { StoreHandle } from '../../src/store/store-handle.js';
import { type RedisServer, startRedis } from '../helpers/redis-server.js';

const DAY = 86_400_000;
const T0 = Date.parse('2026-11-01T00:00:00Z');

describe('salesPointOf', () => {
  it('reads sold, capacity, revenue and each promo code’s redeemed count as the report renderer reads them', () => {
    const point = salesPointOf(
      {
        ticketsSold: 120,
        capacity: 500,
        grossRevenue: 4_800,
        netRevenue: 4_500,
        promos: [{ id: 'promo_1', code: 'EARLYBIRD', redeemed: 12, quantity: 100 }],
      },
      T0,
    );
    expect(point).toEqual({ at: T0, sold: 120, capacity: 500, gross: 4_800, net: 4_500, promos: { EARLYBIRD: 12 } });
  });

  it('has no point for a report without a sold figure', () => {
    expect(salesPointOf({ checkIns: 3 }, T0)).toBeUndefined();
  });
});

describe('thinned', () => {
  it('keeps at most the bound, every recent point, and the first', () => {
    const points = Array.from({ length: 1_200 }, (_, i) => ({ at: T0 + i, sold: i }));
    const kept = thinned(points, 500);
    expect(kept.length).toBeLessThanOrEqual(500);
    expect(kept[0]).toEqual(points[0]);
    expect(kept.slice(-250)).toEqual(points.slice(-250));
    // The older ones thinned evenly: gaps between kept older points are all alike.
    const gaps = new Set(
      kept
        .slice(1, -250)
        .map((p, i, all) => (i === 0 ? undefined : p.at - (all[i - 1] as { at: number }).at))
        .filter((g) => g !== undefined),
    );
    expect(gaps.size).toBeLessThanOrEqual(2);
  });
});

const stores: [string, () => Promise<StoreHandle>][] = [['SQLite', () => openStore('sqlite://:memory:')]];
let redis: RedisServer | undefined;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});
stores.push([
  'Redis',
  () => openStore((redis as RedisServer).url, { logger: silentLogger, namespace: `h${Date.now()}` }),
]);

describe.each(stores)('SalesHistory on %s', (_, open) => {
  it('adds a point per report read, once however many replicas record it at once', async () => {
    const opened = await open();
    try {
      const a = new SalesHistory({ store: opened.keyValue, logger: silentLogger });
      const b = new SalesHistory({ store: opened.keyValue, logger: silentLogger });
      const point = { at: T0, sold: 10 };
      const added = await Promise.all([a.record('evt_1', point), b.record('evt_1', point), a.record('evt_1', point)]);
      expect(added.filter(Boolean)).toHaveLength(1);
      await b.record('evt_1', { at: T0 + DAY, sold: 20 }, { startsAtMs: T0 + 10 * DAY, endsAtMs: T0 + 11 * DAY });
      expect(await a.read('evt_1')).toEqual({
        eventId: 'evt_1',
        startsAtMs: T0 + 10 * DAY,
        endsAtMs: T0 + 11 * DAY,
        points: [point, { at: T0 + DAY, sold: 20 }],
      });
    } finally {
      await opened.close();
    }
  });

  it('adds many points in one write, each once, in time order, and lists the event as finished', async () => {
    const opened = await open();
    try {
      const history = new SalesHistory({ store: opened.keyValue, logger: silentLogger });
      await history.record('evt_many', { at: T0 + 2 * DAY, sold: 20 });
      const points = [3, 0, 2, 1, 3, 4].map((day) => ({ at: T0 + day * DAY, sold: day * 10 }));
      // Day 2 is held already and day 3 comes twice: four new points.
      expect(await history.recordAll('evt_many', points, { startsAtMs: T0 + 7 * DAY, endsAtMs: T0 + 8 * DAY })).toBe(4);
      const read = await history.read('evt_many');
      expect(read.endsAtMs).toBe(T0 + 8 * DAY);
      expect(read.points).toEqual([0, 1, 2, 3, 4].map((day) => ({ at: T0 + day * DAY, sold: day * 10 })));
      expect((await history.finished(T0 + 9 * DAY)).map((h) => h.eventId)).toEqual(['evt_many']);
      expect(await history.recordAll('evt_many', points)).toBe(0);
      // Past its bound, thinned as one point at a time would be: the first and the recent ones kept.
      const small = new SalesHistory({ store: opened.keyValue, logger: silentLogger, maxPoints: 5 });
      const week = [0, 1, 2, 3, 4, 5, 6].map((day) => ({ at: T0 + day * DAY, sold: day }));
      await small.recordAll('evt_week', week);
      expect((await small.read('evt_week')).points).toEqual(thinned(week, 5));
    } finally {
      await opened.close();
    }
  });

  it('lists finished events, and prunes them 30 days after they end', async () => {
    const opened = await open();
    try {
      const history = new SalesHistory({ store: opened.keyValue, logger: silentLogger });
      await history.record('evt_old', { at: T0, sold: 5 }, { startsAtMs: T0 + DAY, endsAtMs: T0 + 2 * DAY });
      await history.record('evt_next', { at: T0, sold: 5 }, { startsAtMs: T0 + 60 * DAY, endsAtMs: T0 + 61 * DAY });
      expect((await history.finished(T0 + 3 * DAY)).map((h) => h.eventId)).toEqual(['evt_old']);
      expect(await history.prune(T0 + 31 * DAY)).toBe(0);
      expect(await history.prune(T0 + 33 * DAY)).toBe(1);
      expect((await history.read('evt_old')).points).toEqual([]);
      expect((await history.read('evt_next')).points).toHaveLength(1);
    } finally {
      await opened.close();
    }
  });
  it('prunes a history whose end was never learnt 90 days after its last point, not before', async () => {
    const opened = await open();
    try {
      const history = new SalesHistory({ store: opened.keyValue, logger: silentLogger });
      await history.record('evt_undated', { at: T0, sold: 5 });
      await history.record('evt_undated', { at: T0 + 10 * DAY, sold: 9 });
      await history.record('evt_live', { at: T0 + 95 * DAY, sold: 1 });
      expect(await history.prune(T0 + 99 * DAY)).toBe(0);
      expect(await history.prune(T0 + 101 * DAY)).toBe(1);
      expect((await history.read('evt_undated')).points).toEqual([]);
      expect((await history.read('evt_live')).points).toHaveLength(1);
    } finally {
      await opened.close();
    }
  });
});
