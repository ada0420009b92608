import { describe, expect, it } from 'vitest';
import type { FinishedEvent } from '../../src/forecast/forecast.js';
import { TRACK_SHARES, trackRecord } from '../../src/forecast/track-record.js';
import type { SalesPoint } from '../../src/history/sales-point.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.parse('2026-01-05T09:00:00Z');

/**
 * A finished event read every 6 hours from its on-sale (nothing sold) to its start, 30 days later:
 * `final` sold by the start along `shape` (the share of final sold by each share of the period).
 */
function finishedEvent(
  index: number,
  final: number,
  shape: (share: number) => number = (s) => s,
  capacity = 1000,
): FinishedEvent & { eventId: string } {
  const opens = T0 + index * 10 * DAY;
  const startsAtMs = opens + 30 * DAY;
  const points = [];
  for (let at = opens; at <= startsAtMs; at += 6 * HOUR)
    points.push({ at, sold: Math.round(final * shape((at - opens) / (startsAtMs - opens))), capacity });
  return { eventId: `evt_${index}`, startsAtMs, capacity, points };
}

/** Most recently finished first, as the history lists them. */
const newestFirst = (events: (FinishedEvent & { eventId: string })[]) =>
  [...events].sort((a, b) => b.startsAtMs - a.startsAtMs);

describe('the track record', () => {
  it('says, for each finished event, what the forecast said at 25%, 50% and 75% of its sale against what happened', () => {
    const events = newestFirst(Array.from({ length: 6 }, (_, i) => finishedEvent(i, 800 + (i % 3) * 20)));
    const record = trackRecord(events);
    expect(record.events).toHaveLength(6);
    const newest = record.events[0];
    expect(newest?.eventId).toBe('evt_5');
    expect(newest?.final).toBe(840);
    expect(newest?.forecasts.map((f) => f.share)).toEqual([...TRACK_SHARES]);
    const opens = T0 + 50 * DAY;
    expect(newest?.forecasts.map((f) => f.at)).toEqual([opens + 7.5 * DAY, opens + 15 * DAY, opens + 22.5 * DAY]);
    for (const f of newest?.forecasts ?? []) {
      expect(f.error).toBeCloseTo(Math.abs(f.said.likely - 840) / 1000, 6);
      expect(f.held).toBe(Math.round(f.said.low) <= 840 && 840 <= Math.round(f.said.high));
    }
    // Steady sales alike: the forecasts land close, and the ranges hold.
    expect(record.forecasts).toBe(18);
    expect(record.meanError).toBeLessThan(0.05);
    expect(record.coverage).toBeGreaterThan(0.8);
  });

  it('forecasts as it could have then: from finished events that had started by that moment only', () => {
    const events = newestFirst(Array.from({ length: 6 }, (_, i) => finishedEvent(i, 800)));
    const record = trackRecord(events);
    const oldest = record.events.at(-1);
    // Nothing had finished before the oldest event's sale: a rough guess from its own pace.
    expect(oldest?.forecasts.every((f) => f.learnedFrom === 0)).toBe(true);
    // The newest learned from the events that had started before each moment.
    expect(record.events[0]?.forecasts.some((f) => f.learnedFrom >= 3)).toBe(true);
  });

  it('measures the error as a share of capacity, and counts a range that missed', () => {
    // A late surge after steady events: the forecast at 25% and 50% falls short, outside its range.
    const steady = Array.from({ length: 5 }, (_, i) => finishedEvent(i, 500));
    const surge = finishedEvent(5, 1000, (s) => (s < 0.8 ? s * 0.3 : 0.24 + (s - 0.8) * 3.8));
    const record = trackRecord(newestFirst([...steady, surge]), { last: 1 });
    expect(record.events).toHaveLength(1);
    const [at25] = record.events[0]?.forecasts ?? [];
    expect(at25?.error).toBeGreaterThan(0.3);
    expect(at25?.held).toBe(false);
    expect(record.coverage).toBeLessThan(1);
  });

  it('keeps to the last events asked for, and leaves out histories that cannot say how a sale ended', () => {
    const events = newestFirst(Array.from({ length: 6 }, (_, i) => finishedEvent(i, 800)));
    const short = { eventId: 'evt_short', startsAtMs: T0 + 200 * DAY, capacity: 100, points: [{ at: T0, sold: 1 }] };
    const record = trackRecord([short, ...events], { last: 3 });
    expect(record.events.map((e) => e.eventId)).toEqual(['evt_5', 'evt_4', 'evt_3']);
  });

  it('makes each event’s forecasts once: a new reading with one more finished event adds only its own', () => {
    const events = newestFirst(Array.from({ length: 7 }, (_, i) => finishedEvent(i, 800 + (i % 3) * 20)));
    const before = trackRecord(events.slice(1));
    const after = trackRecord(events);
    expect(after.events[0]?.eventId).toBe('evt_6');
    // The same tracked events, not made again: what they said depends on nothing that finished later.
    for (const [i, tracked] of before.events.slice(0, -1).entries()) expect(after.events[i + 1]).toBe(tracked);
  });

  it('makes an event’s forecasts again when its history or an earlier event’s changed', () => {
    const events = newestFirst(Array.from({ length: 6 }, (_, i) => finishedEvent(i, 800)));
    const first = trackRecord(events);
    // The oldest event's history read again with a late correction: every newer one learned from it.
    const oldest = events.at(-1) as (typeof events)[number];
    const corrected = {
      ...oldest,
      points: [...oldest.points.slice(0, -1), { ...(oldest.points.at(-1) as SalesPoint), sold: 600 }],
    };
    const again = trackRecord([...events.slice(0, -1), corrected]);
    expect(again.events[0]).not.toBe(first.events[0]);
    expect(again.events.at(-1)?.final).toBe(600);
    expect(again.events[0]?.forecasts).not.toEqual(first.events[0]?.forecasts);
  });

  it('has no mean without finished events', () => {
    expect(trackRecord([])).toEqual({ events: [], forecasts: 0, meanError: undefined, coverage: undefined });
  });
});
