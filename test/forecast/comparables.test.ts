import { describe, expect, it } from 'vitest';
import { type ComparableEvent, comparables, similarBand } from '../../src/forecast/comparables.js';
import { flatlineOdds } from '../../src/forecast/flatline-odds.js';
import type { SalesPoint } from '../../src/history/sales-point.js';
import { comparablesWords } from '../../src/render/comparables-words.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.parse('2026-12-01T09:00:00Z');

/** A sale opening `periodDays` before `startsAtMs`, read every 12 hours, selling `share(t)` of capacity by share of its period gone. */
function curve(
  startsAtMs: number,
  periodDays: number,
  capacity: number,
  share: (gone: number) => number,
): SalesPoint[] {
  const opens = startsAtMs - periodDays * DAY;
  const points: SalesPoint[] = [];
  for (let at = opens; at <= startsAtMs; at += 12 * HOUR) {
    const gone = (at - opens) / (startsAtMs - opens);
    points.push({ at, sold: Math.round(capacity * share(gone)), capacity });
  }
  return points;
}

/** A finished event that started `daysAgo` ago: straight sales to `finalShare` over `periodDays`. */
function finished(
  id: string,
  options: { daysAgo?: number; periodDays?: number; capacity?: number; finalShare: number; venue?: string },
): ComparableEvent {
  const startsAtMs = NOW - (options.daysAgo ?? 10) * DAY;
  const capacity = options.capacity ?? 500;
  return {
    eventId: id,
    startsAtMs,
    capacity,
    points: curve(startsAtMs, options.periodDays ?? 42, capacity, (g) => options.finalShare * g),
    venue: options.venue,
    timezone: 'UTC',
  };
}

/** The event compared: 42-day sale, 21 days to go, `soldShare` sold now. */
function upcoming(soldShare: number, extra: Partial<Parameters<typeof comparables>[0]> = {}) {
  const startsAtMs = NOW + 21 * DAY;
  const points = curve(startsAtMs, 42, 500, (g) => (g <= 0.5 ? soldShare * (g / 0.5) : soldShare)).filter(
    (p) => p.at <= NOW,
  );
  return { now: NOW, eventId: 'evt_now', startsAtMs, capacity: 500, points, finished: [], ...extra };
}

describe('comparables', () => {
  // Straight sales: halfway through their sale (21 days to go) each sold half its final share.
  const similar = [0.48, 0.62, 0.8, 0.9, 1].map((share, i) => finished(`evt_${i}`, { finalShare: share }));

  it('says the share sold, the similar events range and median then, and what they went on to sell', () => {
    const result = comparables(upcoming(0.38, { finished: similar }));
    expect(result.kind).toBe('compared');
    if (result.kind !== 'compared') return;
    expect(result.count).toBe(5);
    expect(result.share).toBeCloseTo(0.38, 2);
    expect(result.atThisPoint.low).toBeCloseTo(0.24, 2);
    expect(result.atThisPoint.median).toBeCloseTo(0.4, 2);
    expect(result.atThisPoint.high).toBeCloseTo(0.5, 2);
    expect(result.final).toEqual({ low: 0.48, median: 0.8, high: 1 });
    expect(comparablesWords(result)).toBe(
      '38% sold with 21 days to go; similar events were at 24-50% (median 40%) then, and ended at 48-100% (5 events).',
    );
  });

  it('gives their band at any time of this sale, and at the start what they ended at', () => {
    const result = comparables(upcoming(0.38, { finished: similar }));
    if (result.kind !== 'compared') throw new Error(result.kind);
    const startsAtMs = NOW + 21 * DAY;
    const [opening, now, start] = similarBand(result, startsAtMs, [startsAtMs - 42 * DAY, NOW, startsAtMs]);
    expect(opening).toEqual({ low: 0, median: 0, high: 0 });
    expect(now?.low).toBeCloseTo(0.24, 2);
    expect(start).toEqual(result.final);
    // Before their sales opened: nothing sold yet.
    expect(similarBand(result, startsAtMs, [startsAtMs - 60 * DAY])).toEqual([{ low: 0, median: 0, high: 0 }]);
  });

  it('leaves out events of another size or selling period, the event itself, and those read too late', () => {
    const others = [
      finished('evt_big', { capacity: 5_000, finalShare: 0.9 }),
      finished('evt_short', { periodDays: 7, finalShare: 0.9 }),
      { ...finished('evt_now', { finalShare: 0.9 }) },
      // Its history begins 10 days before its start: it says nothing of 21 days to go.
      { ...finished('evt_late', { finalShare: 0.9 }), points: finished('x', { finalShare: 0.9 }).points.slice(-21) },
    ];
    const result = comparables(upcoming(0.38, { finished: [...similar.slice(0, 2), ...others] }));
    expect(result).toMatchObject({ kind: 'too-few', found: 2, needs: 3 });
    expect(comparablesWords(result)).toBe(
      '38% sold with 21 days to go; only 2 similar finished events reach back this far: comparing with similar events needs 3.',
    );
  });

  it('says there is none to compare with when the organization has no finished event like it', () => {
    const result = comparables(upcoming(0.38));
    expect(comparablesWords(result)).toBe(
      '38% sold with 21 days to go; no similar finished event reaches back this far: comparing with similar events needs 3.',
    );
  });

  it('narrows to the same venue where enough events were there, and says so', () => {
    const atVenue = [0.6, 0.7, 0.8].map((share, i) => finished(`evt_v${i}`, { finalShare: share, venue: 'Hall A' }));
    const result = comparables(upcoming(0.38, { finished: [...similar, ...atVenue], venue: 'hall a' }));
    expect(result).toMatchObject({ kind: 'compared', count: 3, alike: ['venue'] });
    expect(comparablesWords(result)).toContain('similar events at the same venue were at 30-40%');
  });

  it('narrows to the same weekday of the start where enough events were on it', () => {
    // NOW + 21 days is a Tuesday, as NOW is; these started 1, 2 and 3 weeks before NOW, the others on a Saturday.
    const sameDay = [0.5, 0.6, 0.7].map((share, i) =>
      finished(`evt_d${i}`, { finalShare: share, daysAgo: 7 * (i + 1) }),
    );
    const weekday = (at: number) => new Date(at).getUTCDay();
    expect(sameDay.map((e) => weekday(e.startsAtMs))).toEqual(Array(3).fill(weekday(NOW + 21 * DAY)));
    const result = comparables(upcoming(0.38, { finished: [...similar, ...sameDay], timezone: 'UTC' }));
    expect(result).toMatchObject({ kind: 'compared', count: 3, alike: ['weekday'] });
  });

  it('compares nothing without a capacity or once the event has started', () => {
    expect(
      comparables(upcoming(0.38, { finished: similar, capacity: undefined, points: [{ at: NOW, sold: 3 }] })),
    ).toEqual({
      kind: 'none',
      reason: 'the report has no capacity',
    });
    expect(comparables(upcoming(0.38, { finished: similar, now: NOW + 22 * DAY }))).toMatchObject({ kind: 'none' });
  });
});

describe('flatline odds', () => {
  // The similar events sold 480 tickets over 42 days at most: about 0.48/hour at the least, 1/hour at the most.
  const similar = [0.48, 0.62, 0.8, 0.9, 1].map((share, i) => finished(`evt_${i}`, { finalShare: share }));

  it('reads a pause as Poisson at the similar events pace over the same span before their start', () => {
    const compared = comparables(upcoming(0.38, { finished: similar }));
    const startsAtMs = NOW + 21 * DAY;
    const odds = flatlineOdds(compared, { lastSaleAt: NOW - 12 * HOUR, now: NOW, startsAtMs });
    // The median event (80% over 42 days of 500) sold 400/84 half-days: about 4.76 in 12 hours.
    expect(odds?.expected).toBeCloseTo(400 / 84, 0);
    expect(odds?.chance).toBeCloseTo(Math.exp(-(odds?.expected ?? 0)), 10);
    expect(odds?.count).toBe(5);
    const short = flatlineOdds(compared, { lastSaleAt: NOW - HOUR, now: NOW, startsAtMs });
    expect(short?.chance).toBeGreaterThan(0.5);
  });

  it('says nothing without a comparison', () => {
    const tooFew = comparables(upcoming(0.38, { finished: similar.slice(0, 2) }));
    expect(flatlineOdds(tooFew, { lastSaleAt: NOW - DAY, now: NOW, startsAtMs: NOW + 21 * DAY })).toBeUndefined();
  });
});
