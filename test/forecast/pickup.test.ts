import { describe, expect, it } from 'vitest';
import { backtest, METHODS } from '../../src/forecast/backtest.js';
import { type FinishedEvent, forecast } from '../../src/forecast/forecast.js';
import { interval } from '../../src/forecast/interval.js';
import { finishedSale, momentOf, opensAtOf, pickup, type Sale } from '../../src/forecast/pickup.js';
import type { SalesPoint } from '../../src/history/sales-point.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.parse('2026-10-01T00:00:00Z');

/** Reads every 6 hours from `from` to `to` of `sold(t)`. */
function history(from: number, to: number, sold: (t: number) => number, capacity?: (t: number) => number) {
  const points: SalesPoint[] = [];
  for (let t = from; t <= to; t += 6 * HOUR) {
    const point: SalesPoint = { at: t, sold: Math.round(sold(t)) };
    if (capacity) point.capacity = capacity(t);
    points.push(point);
  }
  return points;
}

/**
 * An event that sells 10 a day from its on-sale, then 300 in its last five days, whatever the
 * length of its sale: its pickup lines up by days before the start, not by share of the period.
 */
function lastFiveDays(opensAt: number, startsAtMs: number) {
  const surge = startsAtMs - 5 * DAY;
  return (t: number) =>
    t <= surge ? (10 * (t - opensAt)) / DAY : (10 * (surge - opensAt)) / DAY + (300 * (t - surge)) / (5 * DAY);
}

function finishedOf(periodDays: number, i: number, capacity = 1_000): FinishedEvent {
  const startsAtMs = T0 - (i + 1) * 100 * DAY;
  const opensAt = startsAtMs - periodDays * DAY;
  return { startsAtMs, capacity, points: history(opensAt, startsAtMs, lastFiveDays(opensAt, startsAtMs)) };
}

const finished = [15, 20, 30, 40, 50].map((days, i) => finishedOf(days, i));
const startsAtMs = T0 + 25 * DAY;
const now = T0 + 12 * DAY;
/** This event's 25-day sale, read up to now: 120 sold, 500 by its start. */
const sells = lastFiveDays(T0, startsAtMs);

describe('additive pickup', () => {
  const sale = (sold: number, capacity: number | undefined): Sale => ({
    startsAtMs: T0 + 20 * DAY,
    capacity,
    opensAt: T0,
    points: [
      { at: T0, sold: 0 },
      { at: T0 + 10 * DAY, sold },
    ],
  });
  const ref = (final: number, half: number, capacity: number) => {
    const e = finishedSale({
      startsAtMs: T0 - 80 * DAY,
      capacity,
      points: [
        { at: T0 - 120 * DAY, sold: 0 },
        { at: T0 - 100 * DAY, sold: half },
        { at: T0 - 80 * DAY, sold: final },
      ],
    });
    if (!e) throw new Error('expected a finished sale');
    return e;
  };

  it('adds the median of what finished events sold from the same point on to what has sold', () => {
    const refs = [ref(400, 100, 1_000), ref(500, 150, 1_000)];
    // Halfway: 300 and 350 more sold from there, 325 their median.
    expect(pickup(sale(120, 1_000), T0 + 10 * DAY, refs, 'share')?.atStart).toBeCloseTo(445);
    // The multiplicative view scales instead: 120 × 900 / 250.
    expect(pickup(sale(120, 1_000), T0 + 10 * DAY, refs, 'share', 'multiplicative')?.atStart).toBeCloseTo(432);
  });

  it('is not pulled by one finished event that sold far more than the rest', () => {
    const refs = [ref(400, 100, 1_000), ref(500, 150, 1_000), ref(1_000, 100, 1_000)];
    // 300, 350 and 900 more from halfway: the median 350, not the mean 517.
    expect(pickup(sale(120, 1_000), T0 + 10 * DAY, refs, 'share')?.atStart).toBeCloseTo(470);
  });

  it('paced: carries on for two weeks how far it sold ahead of the finished events over the last week', () => {
    // Finished events: 10 a day for 40 days. This one sold 10 a day, then 20 a day over the last week.
    const steady = (opensAt: number, days: number, perDay: (day: number) => number): SalesPoint[] => {
      const points: SalesPoint[] = [];
      let sold = 0;
      for (let d = 0; d <= days; d += 1) {
        if (d > 0) sold += perDay(d);
        points.push({ at: opensAt + d * DAY, sold, capacity: 1_000 });
      }
      return points;
    };
    const refs = [1, 2, 3].map((i) => {
      const opensAt = T0 - i * 100 * DAY;
      const e = finishedSale({
        startsAtMs: opensAt + 40 * DAY,
        capacity: 1_000,
        points: steady(opensAt, 40, () => 10),
      });
      if (!e) throw new Error('expected a finished sale');
      return e;
    });
    const now = T0 + 20 * DAY;
    const target: Sale = {
      startsAtMs: T0 + 40 * DAY,
      capacity: 1_000,
      opensAt: T0,
      points: steady(T0, 20, (d) => (d > 13 ? 20 : 10)),
    };
    // 270 sold; the finished events picked up 200 from here. Ahead by 10 a day over the last week:
    // 140 more over the next two weeks, none after.
    expect(pickup(target, now, refs, 'share')?.atStart).toBeCloseTo(470);
    const paced = pickup(target, now, refs, 'share', 'paced');
    expect(paced?.atStart).toBeCloseTo(610);
    expect(paced?.at(now + 7 * DAY)).toBeCloseTo(270 + 70 + 70);
    // The backtest can choose it.
    expect(METHODS.map((m) => m.method.name)).toContain('pickup-days-paced');
  });

  it('scales pickup by capacity: a hall twice the size picks up twice the tickets', () => {
    const refs = [ref(400, 100, 1_000), ref(500, 150, 1_000)];
    expect(pickup(sale(120, 2_000), T0 + 10 * DAY, refs, 'share')?.atStart).toBeCloseTo(120 + 650);
  });

  it('aligns by time before the start as well as by share of the period', () => {
    const refs = finished.map(finishedSale).filter((e) => e !== undefined);
    const target: Sale = { startsAtMs, capacity: 1_000, opensAt: T0, points: history(T0, now, sells) };
    // 13 days before the start, every finished event has 80 + 300 still to sell.
    expect(pickup(target, now, refs, 'days')?.atStart).toBeCloseTo(500, 0);
    // By share (48% in), a 50-day sale is 26 days out and a 15-day one 8: their pickups differ.
    expect(Math.abs((pickup(target, now, refs, 'share')?.atStart ?? 0) - 500)).toBeGreaterThan(10);
  });
});

describe('the backtest', () => {
  it('finds the days-before alignment better where sales line up by days before the start', () => {
    const refs = finished.map(finishedSale).filter((e) => e !== undefined);
    const moment = momentOf({ startsAtMs, capacity: 1_000, opensAt: T0, points: [] }, now);
    const trials = backtest(moment, refs);
    expect(trials.length).toBeGreaterThanOrEqual(4);
    const errorOf = (name: string) => {
      const i = METHODS.findIndex((m) => m.method.name === name);
      const errors = trials.flatMap((t) => {
        const p = t.projected[i];
        return p === undefined ? [] : [Math.abs(t.final - p) / t.norm];
      });
      return errors.reduce((a, b) => a + b, 0) / errors.length;
    };
    expect(errorOf('pickup-days')).toBeLessThan(0.02);
    expect(errorOf('pickup-share')).toBeGreaterThan(3 * errorOf('pickup-days'));
  });

  it('makes the forecast trust the method that backtested best, and says which', () => {
    const result = forecast({ now, startsAtMs, capacity: 1_000, points: history(T0, now, sells), finished });
    if (result.kind !== 'forecast') throw new Error('expected a forecast');
    expect(result.basis).toMatch(/^pickup-days/);
    expect(result.learnedFrom).toBe(5);
    expect(result.atStart.likely).toBeGreaterThan(480);
    expect(result.atStart.likely).toBeLessThan(520);
  });
});

describe('a history that starts after sales began', () => {
  // First read on day 5, with 50 already sold.
  const late = history(T0 + 5 * DAY, now, sells);

  it('does not read its first point as the on-sale', () => {
    expect(late[0]?.sold).toBe(50);
    expect(opensAtOf(late)).toBeUndefined();
    expect(opensAtOf(history(T0, now, sells))).toBe(T0);
  });

  it('still projects from the finished events aligned by time before the start', () => {
    const result = forecast({ now, startsAtMs, capacity: 1_000, points: late, finished });
    if (result.kind !== 'forecast') throw new Error('expected a forecast');
    expect(result.basis).toMatch(/^pickup-days/);
    expect(result.atStart.likely).toBeGreaterThan(480);
    expect(result.atStart.likely).toBeLessThan(520);
  });
});

describe('a capacity that changes', () => {
  // Capacity raised from 400 to 1,000 on day 8; the forecast reads the latest.
  const raised = history(T0, now, sells, (t) => (t < T0 + 8 * DAY ? 400 : 1_000));

  it('projects against the latest capacity, not the first', () => {
    const result = forecast({ now, startsAtMs, capacity: undefined, points: raised, finished });
    if (result.kind !== 'forecast') throw new Error('expected a forecast');
    expect(result.capacity).toBe(1_000);
    expect(result.atStart.likely).toBeGreaterThan(480);
    expect(result.atStart.high).toBeLessThanOrEqual(1_000);
  });

  it('caps at a capacity lowered below the projection, with the sell-out before the start', () => {
    const lowered = history(T0, now, sells, (t) => (t < T0 + 8 * DAY ? 1_000 : 600));
    const result = forecast({ now, startsAtMs, capacity: undefined, points: lowered, finished });
    if (result.kind !== 'forecast') throw new Error('expected a forecast');
    expect(result.capacity).toBe(600);
    expect(result.atStart.high).toBeLessThanOrEqual(600);
    // Scaled to 600 seats, the finished events' pickup (38% of capacity) leaves it short of 600.
    expect(result.atStart.likely).toBeLessThan(600);
  });
});

describe('the 80% interval', () => {
  it('is the prior width without residuals, and says it covers 80%', () => {
    expect(interval([])).toEqual({ below: -0.12, above: 0.12 });
    const result = forecast({ now, startsAtMs, capacity: 1_000, points: history(T0, now, sells), finished });
    if (result.kind !== 'forecast') throw new Error('expected a forecast');
    expect(result.coverage).toBe(0.8);
    expect(result.atStart.low).toBeLessThanOrEqual(result.atStart.likely);
    expect(result.atStart.high).toBeGreaterThanOrEqual(result.atStart.likely);
  });

  it('follows the residuals: wider where the backtest missed by more, skewed as they are', () => {
    const residuals = Array.from({ length: 40 }, (_, i) => (i - 10) / 100);
    const narrow = interval(residuals.map((r) => r / 4));
    const wide = interval(residuals);
    expect(wide.above - wide.below).toBeGreaterThan(2 * (narrow.above - narrow.below));
    // Residuals from -0.10 to 0.29: more room above than below.
    expect(wide.above).toBeGreaterThan(-wide.below);
    expect(wide.below).toBeLessThan(0);
  });

  it('widens the same misses more when fewer finished events show them', () => {
    const misses = [-0.1, -0.05, 0.05, 0.2];
    const few = interval(misses);
    const many = interval([...misses, ...misses, ...misses]);
    expect(few.above).toBeGreaterThan(1.2 * many.above);
    expect(few.below).toBeLessThan(1.2 * many.below);
    // Each side from its own misses: more room above, where they missed by more.
    expect(many.above).toBeGreaterThan(-many.below);
  });

  it('keeps a least width when every finished event agrees', () => {
    const agreeing = interval([0, 0]);
    expect(agreeing.above).toBeGreaterThan(0);
    expect(agreeing.below).toBeLessThan(0);
  });

  it('holds a wider range when the finished events disagree on what follows', () => {
    const period = 30 * DAY;
    // Each sold 250 by halfway, then `final` in all: the same first half, different second halves.
    const secondHalf = (final: number, i: number): FinishedEvent => {
      const starts = T0 - (i + 1) * 60 * DAY;
      const opens = starts - period;
      const sold = (t: number) =>
        t - opens <= period / 2
          ? (250 * (t - opens)) / (period / 2)
          : 250 + ((final - 250) * (t - opens - period / 2)) / (period / 2);
      return { startsAtMs: starts, capacity: 1_000, points: history(opens, starts, sold) };
    };
    const starts = T0 + period;
    const halfway = T0 + period / 2;
    const points = history(T0, halfway, (t) => (500 * (t - T0)) / period);
    const rangeOf = (finals: number[]) => {
      const result = forecast({
        now: halfway,
        startsAtMs: starts,
        capacity: 1_000,
        points,
        finished: finals.map(secondHalf),
      });
      if (result.kind !== 'forecast' || result.basis === undefined) throw new Error('expected a learned forecast');
      return result.atStart;
    };
    const agree = rangeOf([490, 500, 510, 495, 505]);
    const disagree = rangeOf([300, 700, 400, 650, 500]);
    expect(disagree.high - disagree.low).toBeGreaterThan(3 * (agree.high - agree.low));
    expect(disagree.low).toBeLessThan(agree.low);
    expect(disagree.high).toBeGreaterThan(agree.high);
  });
});
