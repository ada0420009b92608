import { describe, expect, it } from 'vitest';
import { bookingCurveForecast } from '../../src/forecast/booking-curve-forecast.js';
import { bookingCurve, type FinishedEvent, forecast, paceOf, soldAt } from '../../src/forecast/forecast.js';
import type { SalesPoint } from '../../src/history/sales-point.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.parse('2026-10-01T00:00:00Z');

/** Half of the tickets in the last week of a 30-day sale: the shape a straight line gets wrong. */
function lateCurveShare(elapsedShare: number): number {
  // 50% over the first 23 days, 50% over the last 7.
  const lastWeekStarts = 23 / 30;
  return elapsedShare <= lastWeekStarts
    ? 0.5 * (elapsedShare / lastWeekStarts)
    : 0.5 + 0.5 * ((elapsedShare - lastWeekStarts) / (1 - lastWeekStarts));
}

function finishedEvent(startsAtMs: number, final: number, capacity: number): FinishedEvent {
  const opens = startsAtMs - 30 * DAY;
  const points: SalesPoint[] = [];
  for (let d = 0; d <= 30; d += 1)
    points.push({ at: opens + d * DAY, sold: Math.round(final * lateCurveShare(d / 30)) });
  return { startsAtMs, capacity, points };
}

describe('soldAt and paceOf', () => {
  const points: SalesPoint[] = [
    { at: T0, sold: 0 },
    { at: T0 + DAY, sold: 24 },
    { at: T0 + 8 * DAY, sold: 24 + 7 * 48 },
  ];

  it('reads sold between points by straight lines, and nothing before the first', () => {
    expect(soldAt(points, T0 + 12 * HOUR)).toBe(12);
    expect(soldAt(points, T0 - 1)).toBeUndefined();
    expect(soldAt(points, T0 + 20 * DAY)).toBe(360);
  });

  it('gives per hour over the last day, per day over the last week and the week before the last day', () => {
    const pace = paceOf(points, T0 + 8 * DAY);
    expect(pace.perHourLastDay).toBeCloseTo(2);
    expect(pace.perDayLastWeek).toBeCloseTo(48);
    expect(pace.perDayWeekBefore).toBeCloseTo((24 + 6 * 48 - 0) / 7);
  });

  it('leaves a pace undefined where the history does not reach back', () => {
    const pace = paceOf(points.slice(1), T0 + 8 * DAY);
    expect(pace.perDayWeekBefore).toBeUndefined();
  });
});

describe('forecast', () => {
  const startsAtMs = T0 + 30 * DAY;
  // Three finished events of the same size and selling period, each selling half in its last week.
  const finished = [1, 2, 3].map((i) => finishedEvent(T0 - i * 40 * DAY, 400 + i * 10, 500));
  // This event, 15 days into its 30-day sale, has sold as those did: about a third of its final.
  const opens = T0;
  const points: SalesPoint[] = Array.from({ length: 16 }, (_, d) => ({
    at: opens + d * DAY,
    sold: Math.round(600 * lateCurveShare(d / 30)),
    capacity: 500,
  }));
  const now = opens + 15 * DAY;

  // The booking-curve method (the forecaster before issue 35, the benchmark's "before").
  it('scales the median booking curve of at least three similar finished events', () => {
    const result = bookingCurveForecast({ now, startsAtMs, capacity: 500, points, finished });
    expect(result.kind).toBe('forecast');
    if (result.kind !== 'forecast') return;
    expect(result.method).toBe('booking-curve');
    expect(result.learnedFrom).toBe(3);
    // It would sell 600 by its curve: capacity caps the projection, and it sells out before the start.
    expect(result.atStart.likely).toBe(500);
    expect(result.sellOut).toBeDefined();
    const sellOut = result.sellOut as NonNullable<typeof result.sellOut>;
    expect(sellOut.likely).toBeLessThan(startsAtMs);
    expect(sellOut.likely).toBeGreaterThan(now);
    expect(sellOut.earliest).toBeLessThanOrEqual(sellOut.likely);
    // Half of 600 sells in the last week: 500 is reached within it, not at the straight line's pace.
    expect(sellOut.likely).toBeGreaterThan(startsAtMs - 7 * DAY);
  });

  it('knows the curve where a straight line through the first sales falls short', () => {
    const far = forecast({ now, startsAtMs, capacity: 5_000, points, finished: [] });
    const curve = bookingCurveForecast({
      now,
      startsAtMs,
      capacity: 5_000,
      points,
      finished: [1, 2, 3].map((i) => finishedEvent(T0 - i * 40 * DAY, 4_000, 5_000)),
    });
    if (far.kind !== 'forecast' || curve.kind !== 'forecast') throw new Error('expected forecasts');
    expect(far.method).toBe('recent-pace');
    // The straight line projects about 390 (195 + 13/day for 15 days); the curve about 600.
    expect(far.atStart.likely).toBeLessThan(420);
    expect(curve.atStart.likely).toBeGreaterThan(560);
    expect(curve.atStart.likely).toBeLessThan(640);
  });

  // Issue 45: with three or more finished events but fewer than three similar (by size and selling
  // period), it learns from all of them, in shares of capacity; no longer the recent pace, which
  // misses a late surge by half the capacity.
  it('learns from unlike finished events, in shares, when fewer than three are similar', () => {
    // Four times this event's size, each selling 60% of its capacity, half in its last week.
    const bigger = [1, 2, 3].map((i) => finishedEvent(T0 - i * 40 * DAY, 1_200 + i * 10, 2_000));
    // This one sells 60% of its 500 seats on the same curve: at half-way, 98 sold.
    const same = points.map((p) => ({ ...p, sold: Math.round(300 * lateCurveShare((p.at - opens) / (30 * DAY))) }));
    const result = forecast({ now, startsAtMs, capacity: 500, points: same, finished: bigger });
    if (result.kind !== 'forecast') throw new Error('expected a forecast');
    expect(result.method).toBe('booking-curve');
    expect(result.learnedFrom).toBe(3);
    expect(result.unlike).toBe(true);
    // Their shares say about 300 (60%); the recent pace, about 200.
    expect(result.atStart.likely).toBeGreaterThan(280);
    expect(result.atStart.likely).toBeLessThan(320);
    expect(result.atStart.low).toBeLessThan(result.atStart.likely);
    expect(result.atStart.likely).toBeLessThan(result.atStart.high);
  });

  // With fewer than three finished events at all (similar or not) there is nothing to backtest on.
  it('falls back to the recent pace with fewer than three finished events, with a range around it', () => {
    const unlike = [finishedEvent(T0 - 40 * DAY, 40_000, 50_000), ...finished.slice(0, 1)];
    const result = forecast({ now, startsAtMs, capacity: 500, points, finished: unlike });
    if (result.kind !== 'forecast') throw new Error('expected a forecast');
    expect(result.method).toBe('recent-pace');
    expect(result.learnedFrom).toBe(0);
    expect(result.atStart.low).toBeLessThan(result.atStart.likely);
    expect(result.atStart.likely).toBeLessThanOrEqual(result.atStart.high);
  });

  it('says there is not enough history for fewer than three reports or a short span', () => {
    expect(forecast({ now, startsAtMs, capacity: 500, points: points.slice(0, 2), finished }).kind).toBe('none');
    const close = [
      { at: now - HOUR, sold: 10 },
      { at: now - HOUR / 2, sold: 11 },
      { at: now, sold: 12 },
    ];
    expect(forecast({ now, startsAtMs, capacity: 500, points: close, finished }).kind).toBe('none');
  });

  it('projects no sell-out for an event selling too slowly to fill before its start', () => {
    const slow: SalesPoint[] = [
      { at: now - 7 * DAY, sold: 10 },
      { at: now - 3 * DAY, sold: 12 },
      { at: now, sold: 14 },
    ];
    const result = forecast({ now, startsAtMs, capacity: 500, points: slow, finished: [] });
    if (result.kind !== 'forecast') throw new Error('expected a forecast');
    expect(result.sellOut).toBeUndefined();
    expect(result.atStart.high).toBeLessThan(500);
  });

  it('learns no curve from an event with a selling period under a day or nothing sold', () => {
    expect(
      bookingCurve({
        startsAtMs: T0 + HOUR,
        capacity: 10,
        points: [
          { at: T0, sold: 1 },
          { at: T0 + 1, sold: 2 },
          { at: T0 + 2, sold: 3 },
        ],
      }),
    ).toBeUndefined();
    expect(
      bookingCurve({
        startsAtMs: T0 + 3 * DAY,
        capacity: 10,
        points: [
          { at: T0, sold: 0 },
          { at: T0 + DAY, sold: 0 },
          { at: T0 + 2 * DAY, sold: 0 },
        ],
      }),
    ).toBeUndefined();
  });
  it('learns no curve from a history that stopped being read well before its start', () => {
    const event = finishedEvent(T0 + 30 * DAY, 500, 500);
    expect(bookingCurve(event)).toBeDefined();
    // Read only over its first twenty days: its "final" sales would be a third short.
    const stopped = { ...event, points: event.points.slice(0, 21) };
    expect(bookingCurve(stopped)).toBeUndefined();
    // A year-long sale last read 20 days before its start: a tenth of its period, but weeks.
    const year = {
      startsAtMs: T0 + 300 * DAY,
      capacity: 500,
      points: [
        { at: T0, sold: 10 },
        { at: T0 + 200 * DAY, sold: 200 },
        { at: T0 + 280 * DAY, sold: 300 },
      ],
    };
    expect(bookingCurve(year)).toBeUndefined();
    expect(bookingCurve({ ...year, points: [...year.points, { at: T0 + 295 * DAY, sold: 400 }] })).toBeDefined();
  });

  it('projects an oversold event at its sold, never below it, and no sell-out', () => {
    const oversold: SalesPoint[] = [
      { at: now - 7 * DAY, sold: 480 },
      { at: now - 3 * DAY, sold: 505 },
      { at: now, sold: 520 },
    ];
    for (const known of [[], finished]) {
      const result = forecast({ now, startsAtMs, capacity: 500, points: oversold, finished: known });
      if (result.kind !== 'forecast') throw new Error('expected a forecast');
      expect(result.atStart).toEqual({ low: 520, likely: 520, high: 520 });
      expect(result.sellOut).toBeUndefined();
    }
  });

  it('keeps a sell-out range in order: earliest, likely, latest', () => {
    const selling: SalesPoint[] = [
      { at: now - 7 * DAY, sold: 100 },
      { at: now - 3 * DAY, sold: 250 },
      { at: now, sold: 400 },
    ];
    for (const known of [[], finished]) {
      const result = forecast({ now, startsAtMs, capacity: 500, points: selling, finished: known });
      if (result.kind !== 'forecast' || !result.sellOut) throw new Error('expected a sell-out');
      expect(result.sellOut.earliest).toBeLessThanOrEqual(result.sellOut.likely);
      expect(result.sellOut.latest ?? Number.POSITIVE_INFINITY).toBeGreaterThanOrEqual(result.sellOut.likely);
    }
  });
});
