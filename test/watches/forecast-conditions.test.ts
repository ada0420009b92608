import { describe, expect, it } from 'vitest';
import type { Forecast } from '../../src/forecast/forecast.js';
import {
  cannotCheck,
  conditionsOffered,
  describeCondition,
  judge,
  parseConditions,
} from '../../src/watches/watch-condition.js';
import { shown } from '../helpers/shown.js';

const NOW = Date.parse('2026-12-01T09:00:00Z');
const DAY = 86_400_000;
const report = { ticketsSold: 300, capacity: 500 };

const forecastOf = (overrides: Partial<Extract<Forecast, { kind: 'forecast' }>> = {}): Forecast => ({
  kind: 'forecast',
  method: 'booking-curve',
  learnedFrom: 4,
  sold: 300,
  capacity: 500,
  atStart: { low: 450, likely: 500, high: 500 },
  sellOut: { earliest: NOW + 2 * DAY, likely: NOW + 3 * DAY, latest: NOW + 4 * DAY },
  pace: { perHourLastDay: 1, perDayLastWeek: 30, perDayWeekBefore: 40 },
  ...overrides,
});
const HOUR = 3_600_000;
/** An event whose history began with the report at hand (at NOW): no forecast before 6 hours of reports. */
const pending: Forecast = {
  kind: 'none',
  reason: 'fewer than 3 reports over 6 hours',
  pace: { perHourLastDay: undefined, perDayLastWeek: undefined, perDayWeekBefore: undefined, since: NOW },
  readyAt: NOW + 6 * HOUR,
  needs: '3 reports over 6 hours',
};
const reading = (forecast: Forecast | undefined) => ({
  report,
  previousSold: undefined,
  lastSaleAt: undefined,
  now: NOW,
  forecast,
});

describe('forecast conditions', () => {
  it('reads "sells out before start", "pace < N/day" and "pace halves" back as themselves', () => {
    const parsed = parseConditions('sells out before start, pace < 20/day, pace halves', report, forecastOf());
    expect('conditions' in parsed && parsed.conditions.map(describeCondition)).toEqual([
      'sells out before start',
      'pace < 20/day',
      'pace halves',
    ]);
  });

  it('cannot be checked, saying why, where no forecast is known at all or it could never come before the start', () => {
    const parsed = parseConditions('sells out before start', report, undefined);
    expect(parsed).toEqual({
      problem: '"sells out before start" cannot be checked: the sales history is too short for a forecast yet.',
    });
    const started: Forecast = { kind: 'none', reason: 'the event has started', pace: forecastOf().pace };
    expect(cannotCheck({ kind: 'sells-out' }, report, started)).toContain('the event has started');
    // Its first forecast would come too close to the start for a sell-out alert (or a pace) to mean anything.
    const late: Forecast = { ...pending, readyAt: NOW + 6 * HOUR };
    expect(cannotCheck({ kind: 'sells-out' }, report, late, NOW + 12 * HOUR)).toContain('the event starts');
    expect(cannotCheck({ kind: 'pace-halves' }, report, late, NOW + 3 * DAY)).toContain('the event starts');
    expect(cannotCheck({ kind: 'sells-out' }, { ticketsSold: 3 }, pending)).toContain('capacity');
  });

  it('are accepted on an event with little history, not judged until the history allows, saying from when', () => {
    const parsed = parseConditions(
      'sells out before start, pace < 20/day, pace halves',
      report,
      pending,
      NOW + 10 * DAY,
    );
    expect('conditions' in parsed && parsed.conditions.map(describeCondition)).toEqual([
      'sells out before start',
      'pace < 20/day',
      'pace halves',
    ]);
    const early = { ...reading(pending), startsAtMs: NOW + 10 * DAY };
    expect(judge({ kind: 'sells-out' }, early)).toEqual({
      unknown: 'not judged yet: a forecast needs 3 reports over 6 hours',
      pending: { from: NOW + 6 * HOUR, after: '3 reports over 6 hours' },
    });
    expect(judge({ kind: 'pace-below', perDay: 20 }, early)).toMatchObject({
      pending: { from: NOW + DAY, after: 'a day of reports' },
    });
    expect(judge({ kind: 'pace-halves' }, early)).toMatchObject({
      pending: { from: NOW + 8 * DAY, after: '8 days of reports' },
    });
  });

  it('fires "sells out before start" with the projected day, and re-arms once the forecast no longer sells out', () => {
    expect(judge({ kind: 'sells-out' }, reading(forecastOf()))).toEqual({
      value: NOW + 3 * DAY,
      met: true,
      cleared: false,
    });
    expect(judge({ kind: 'sells-out' }, reading(forecastOf({ sellOut: undefined })))).toEqual({
      value: 0,
      met: false,
      cleared: true,
    });
  });

  it('fires "sells out before start" only clearly before the start, and re-arms only once it moves close to it', () => {
    const START = NOW + 10 * DAY;
    const HOUR = 3_600_000;
    const at = (likely: number) =>
      judge(
        { kind: 'sells-out' },
        {
          ...reading(forecastOf({ sellOut: { earliest: likely - DAY, likely, latest: undefined } })),
          startsAtMs: START,
        },
      );
    expect(at(START - 2 * DAY)).toMatchObject({ met: true, cleared: false });
    expect(at(START - 12 * HOUR)).toMatchObject({ met: true, cleared: false });
    // Between 12 and 6 hours before the start: neither met nor cleared, so a wobble there stays quiet.
    expect(at(START - 9 * HOUR)).toMatchObject({ met: false, cleared: false });
    expect(at(START - 5 * HOUR)).toMatchObject({ met: false, cleared: true });
  });

  it('fires "pace < N/day" below the pace and re-arms 10% above it', () => {
    expect(judge({ kind: 'pace-below', perDay: 40 }, reading(forecastOf()))).toMatchObject({ value: 30, met: true });
    const back = forecastOf({ pace: { perHourLastDay: 2, perDayLastWeek: 45, perDayWeekBefore: 40 } });
    expect(judge({ kind: 'pace-below', perDay: 40 }, reading(back))).toMatchObject({ met: false, cleared: true });
  });

  it('fires "pace halves" when the last day sold at half the week before’s pace or less', () => {
    // 1 an hour = 24 a day against 40 a day: 60%.
    expect(judge({ kind: 'pace-halves' }, reading(forecastOf()))).toMatchObject({ value: 0.6, met: false });
    const slow = forecastOf({ pace: { perHourLastDay: 0.5, perDayLastWeek: 30, perDayWeekBefore: 40 } });
    expect(judge({ kind: 'pace-halves' }, reading(slow))).toMatchObject({ value: 0.3, met: true });
  });

  it('are offered only where the history can answer them', () => {
    const kinds = (forecast?: Forecast) => conditionsOffered(shown(report), forecast).map((c) => c.kind);
    expect(kinds()).not.toContain('sells-out');
    expect(kinds(forecastOf())).toEqual(expect.arrayContaining(['sells-out', 'pace-below', 'pace-halves']));
    expect(kinds(pending)).toEqual(expect.arrayContaining(['sells-out', 'pace-halves']));
  });
});
