import { afterEach, describe, expect, it } from 'vitest';
import { salesInsights } from '../../src/forecast/sales-insights.js';
import { SalesHistory } from '../../src/history/sales-history.js';
import { silentLogger } from '../../src/logger.js';
import { openStore } from '../../src/store/open-store.js';
import type { StoreHandle } from '../../src/store/store-handle.js';

const HOUR = 3_600_000;
const NOW = Date.parse('2026-12-01T09:00:00Z');

let opened: StoreHandle | undefined;
afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

async function insightsWith(points: { at: number; sold: number }[]) {
  opened = await openStore('sqlite://:memory:');
  const history = new SalesHistory({ store: opened.keyValue, logger: silentLogger });
  for (const point of points) await history.record('evt_1', { ...point, capacity: 500 });
  return salesInsights({
    history,
    eventInfo: () => ({ startsAtMs: NOW + 10 * 24 * HOUR, timezone: 'UTC' }),
    clock: { now: () => NOW },
  });
}

describe('sales insights with the report at hand', () => {
  const stored = [
    { at: NOW - 48 * HOUR, sold: 10 },
    { at: NOW - 24 * HOUR, sold: 40 },
    { at: NOW - 2 * HOUR, sold: 90 },
  ];

  it('take a fresh report as the newest point', async () => {
    const insights = await insightsWith(stored);
    const insight = await insights.of('evt_1', { ticketsSold: 95, capacity: 500 });
    expect(insight?.points.map((p) => p.sold)).toEqual([10, 40, 90, 95]);
  });

  it('leave out a report showing fewer sold than the last stored point (a cached one older than it)', async () => {
    const insights = await insightsWith(stored);
    const insight = await insights.of('evt_1', { ticketsSold: 60, capacity: 500 });
    expect(insight?.points.map((p) => p.sold)).toEqual([10, 40, 90]);
  });

  it('leave out a report with the newest stored point’s figures within the cache’s life: the same read', async () => {
    // Read 30 s ago and served from the cache now: one read, not two.
    const insights = await insightsWith([...stored, { at: NOW - 30_000, sold: 95 }]);
    const insight = await insights.of('evt_1', { ticketsSold: 95, capacity: 500 });
    expect(insight?.points.map((p) => p.sold)).toEqual([10, 40, 90, 95]);
  });

  it('take a report with the same figures as a point read hours ago as a new read', async () => {
    // No cache serves a report two hours on: a quiet event's new read, which says the same.
    const insights = await insightsWith(stored);
    const insight = await insights.of('evt_1', { ticketsSold: 90, capacity: 500 });
    expect(insight?.points.map((p) => p.sold)).toEqual([10, 40, 90, 90]);
  });
});
