import { describe, expect, it } from 'vitest';
import { type FinishedEvent, forecast } from '../../src/forecast/forecast.js';
import { pooledInterval } from '../../src/forecast/pooled-forecast.js';
import type { SalesPoint } from '../../src/history/sales-point.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.parse('2026-10-01T00:00:00Z');
const startsAtMs = T0 + 40 * DAY;

/** A 40-day sale from `T0` read every 6 hours up to `until`, selling `perDay`. */
function selling(perDay: number, until: number): SalesPoint[] {
  const points: SalesPoint[] = [];
  for (let t = T0; t <= until; t += 6 * HOUR)
    points.push({ at: t, sold: Math.round((perDay * (t - T0)) / DAY), capacity: 1_000 });
  return points;
}

/** Finished events of `days`-day sales that sold steadily to `final`. */
function finishedOf(count: number, days: number): FinishedEvent[] {
  return Array.from({ length: count }, (_, i) => {
    const starts = T0 - (i + 1) * 60 * DAY;
    const points: SalesPoint[] = [];
    for (let d = 0; d <= days; d += 1) points.push({ at: starts - (days - d) * DAY, sold: 20 * d, capacity: 1_000 });
    return { startsAtMs: starts, capacity: 1_000, points };
  });
}

describe('the forecast with too few similar finished events', () => {
  it('keeps the recent pace, with the pooled prior’s 80% interval, and says so', () => {
    const now = T0 + 10 * DAY;
    const result = forecast({ now, startsAtMs, capacity: 1_000, points: selling(10, now), finished: [] });
    if (result.kind !== 'forecast') throw new Error('expected a forecast');
    expect(result.method).toBe('recent-pace');
    expect(result.learnedFrom).toBe(0);
    expect(result.basis).toBeUndefined();
    expect(result.coverage).toBe(0.8);
    // 100 sold, 10 a day for 30 more days: 400 likely. With three quarters of the sale left the
    // prior reaches 19% of capacity below and 72% above (a slow start may still surge): not the
    // 0.5x-2x of the pace (200-700) the forecast said before, which held the outcome far less often.
    const { low, likely, high } = result.atStart;
    expect(likely).toBeCloseTo(400, 0);
    expect(low).toBeCloseTo(400 - 190, 0);
    // 400 + 720 is past the 1,000 seats.
    expect(high).toBe(1_000);
  });

  it('narrows as less of the sale is left', () => {
    const early = pooledInterval(0.75);
    const late = pooledInterval(0.25);
    expect(late.above - late.below).toBeLessThan(early.above - early.below);
    // Between the measured shares, between their widths; beyond them, held at the ends.
    const mid = pooledInterval(0.6);
    expect(mid.above).toBeGreaterThan(pooledInterval(0.5).above);
    expect(mid.above).toBeLessThan(early.above);
    expect(pooledInterval(0.05)).toEqual(late);
    expect(pooledInterval(1)).toEqual(early);
  });

  // Issue 45 changed this: three unlike finished events (selling for 400 days) were a fallback to the
  // recent pace; now it learns from them (forecast.test.ts). Only fewer than three finished events are.
  it('falls back to it with two finished events; with three unlike ones it learns from them', () => {
    const now = T0 + 30 * DAY;
    const points = selling(10, now);
    const result = forecast({ now, startsAtMs, capacity: 1_000, points, finished: finishedOf(2, 40) });
    if (result.kind !== 'forecast') throw new Error('expected a forecast');
    expect(result.learnedFrom).toBe(0);
    expect(result.coverage).toBe(0.8);
    expect(result.atStart.low).toBeLessThan(result.atStart.likely);
    expect(result.atStart.high).toBeGreaterThan(result.atStart.likely);
    const unlike = forecast({ now, startsAtMs, capacity: 1_000, points, finished: finishedOf(3, 400) });
    if (unlike.kind !== 'forecast') throw new Error('expected a forecast');
    expect(unlike.learnedFrom).toBe(3);
    expect(unlike.unlike).toBe(true);
    // Three like it: the organization's own backtest instead.
    const learned = forecast({ now, startsAtMs, capacity: 1_000, points, finished: finishedOf(3, 40) });
    if (learned.kind !== 'forecast') throw new Error('expected a forecast');
    expect(learned.basis).toBeDefined();
    expect(learned.learnedFrom).toBe(3);
  });

  it('spreads the sell-out time with the range: earliest at its top, latest at its bottom', () => {
    const now = T0 + 10 * DAY;
    // 60 a day: 600 sold, the likely sell-out in 6.7 days, well before the start.
    const result = forecast({ now, startsAtMs, capacity: 1_000, points: selling(60, now), finished: [] });
    if (result.kind !== 'forecast' || !result.sellOut) throw new Error('expected a sell-out');
    const { earliest, likely, latest } = result.sellOut;
    expect((likely - now) / DAY).toBeCloseTo(400 / 60, 1);
    expect(earliest).toBeLessThan(likely);
    expect(latest ?? Number.POSITIVE_INFINITY).toBeGreaterThan(likely);
  });
});
