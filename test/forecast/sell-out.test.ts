import { describe, expect, it } from 'vitest';
import { type FinishedEvent, forecast } from '../../src/forecast/forecast.js';
import type { SalesPoint } from '../../src/history/sales-point.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.parse('2026-10-01T00:00:00Z');
const CAPACITY = 1_000;

/** A 30-day sale read every 6 hours, selling `perDay` steadily until its 1,000 seats are gone. */
function steady(opensAt: number, perDay: number, until: number): SalesPoint[] {
  const points: SalesPoint[] = [];
  for (let t = opensAt; t <= until; t += 6 * HOUR)
    points.push({ at: t, sold: Math.min(CAPACITY, Math.round((perDay * (t - opensAt)) / DAY)), capacity: CAPACITY });
  return points;
}

/** Six finished events that sold 40 a day and sold out on day 25 of 30: flat for their last five days. */
const finished: FinishedEvent[] = Array.from({ length: 6 }, (_, i) => {
  const opensAt = T0 - (i + 1) * 60 * DAY;
  return { startsAtMs: opensAt + 30 * DAY, capacity: CAPACITY, points: steady(opensAt, 40, opensAt + 30 * DAY) };
});

describe('the sell-out time', () => {
  it('follows demand past the finished events’ sell-outs, not their flat ends', () => {
    // This one sells 38 a day: 570 by day 15, 30 behind them, and the last seat goes on day 26.3.
    const now = T0 + 15 * DAY;
    const result = forecast({
      now,
      startsAtMs: T0 + 30 * DAY,
      capacity: CAPACITY,
      points: steady(T0, 38, now),
      finished,
    });
    if (result.kind !== 'forecast') throw new Error('expected a forecast');
    expect(result.learnedFrom).toBe(6);
    // Read off their sales as sold, it would be 30 short at the start and never sell out.
    expect(result.sellOut).toBeDefined();
    const day = ((result.sellOut?.likely ?? 0) - T0) / DAY;
    expect(day).toBeGreaterThan(25);
    expect(day).toBeLessThan(27);
    expect(result.sellOut?.earliest).toBeLessThanOrEqual(result.sellOut?.likely ?? 0);
  });

  it('projects none for a sale that demand leaves short of capacity', () => {
    // 20 a day: 300 by day 15, and at the finished events' demand still short of 1,000 by day 30.
    const now = T0 + 15 * DAY;
    const result = forecast({
      now,
      startsAtMs: T0 + 30 * DAY,
      capacity: CAPACITY,
      points: steady(T0, 20, now),
      finished,
    });
    if (result.kind !== 'forecast') throw new Error('expected a forecast');
    expect(result.sellOut).toBeUndefined();
  });
});
