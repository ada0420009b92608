import { describe, expect, it } from 'vitest';
import {
  checkInterval,
  nextCheck,
  type WatchCandidate,
  type WatchScheduleRule,
} from '../../src/watches/watch-schedule.js';

const MINUTE = 60_000;
const DAY = 86_400_000;
/** The spec's limit (3 reports a minute) and the default WATCH_MIN_INTERVAL (10 min). */
const RULE: WatchScheduleRule = { limit: 3, windowMs: MINUTE, minIntervalMs: 10 * MINUTE };
const T0 = Date.parse('2026-12-01T09:00:00Z');

describe('checkInterval', () => {
  it.each([
    [0, 10 * MINUTE],
    [1, 10 * MINUTE],
    [3, 10 * MINUTE],
    [30, 10 * MINUTE],
    [31, 11 * MINUTE],
    [90, 30 * MINUTE],
  ])('with %i watched events at 3 a minute and 10 min minimum: every %i ms', (watched, interval) => {
    expect(checkInterval(watched, RULE)).toBe(interval);
    expect(checkInterval(watched, RULE)).toBe(Math.max(Math.ceil(watched / 3) * MINUTE, 10 * MINUTE));
  });

  it('is ceil(W / limit) windows when that is longer than the minimum interval', () => {
    const fast: WatchScheduleRule = { limit: 3, windowMs: 1_000, minIntervalMs: 1_000 };
    expect(checkInterval(0, fast)).toBe(1_000);
    expect(checkInterval(4, fast)).toBe(2_000);
    expect(checkInterval(30, fast)).toBe(10_000);
    expect(checkInterval(31, fast)).toBe(11_000);
  });
});

interface Run {
  /** Check times of each event, by id. */
  checks: Map<string, number[]>;
  slots: number;
  slotMs: number;
}

/**
 * No one asking: at each slot time (windowMs / limit apart) the scheduler asks nextCheck and
 * checks the event it names when due.
 */
function simulate(candidates: WatchCandidate[], rule: WatchScheduleRule, windows: number, start = T0): Run {
  const slotMs = rule.windowMs / rule.limit;
  const checks = new Map<string, number[]>(candidates.map((c) => [c.eventId, []]));
  const slots = windows * rule.limit;
  const dueKeys = new Set<string>();
  for (let slot = 0; slot < slots; slot++) {
    const now = start + slot * slotMs;
    const next = nextCheck(candidates, now, rule);
    if (!next || next.dueAt > now) continue;
    // One check per due time: a due key is never handed out twice.
    expect(dueKeys.has(next.dueKey)).toBe(false);
    dueKeys.add(next.dueKey);
    const candidate = candidates.find((c) => c.eventId === next.eventId) as WatchCandidate;
    candidate.lastCheckedAt = now;
    checks.get(next.eventId)?.push(now);
  }
  return { checks, slots, slotMs };
}

const gaps = (times: number[]) => times.slice(1).map((t, i) => t - (times[i] as number));

/** W events, none checked yet, starting one hour apart from tomorrow, listed in a shuffled order. */
function events(count: number): WatchCandidate[] {
  const list = Array.from({ length: count }, (_, i) => ({
    eventId: `evt_${String(i).padStart(3, '0')}`,
    lastCheckedAt: undefined,
    startsAtMs: T0 + DAY + i * 3_600_000,
  }));
  // A fixed shuffle, so the order of the list is not what decides.
  return list
    .map((c, i) => ({ c, k: (i * 7919) % count }))
    .sort((a, b) => a.k - b.k || 0)
    .map(({ c }) => c);
}

const startOf = (id: string, list: WatchCandidate[]) =>
  list.find((c) => c.eventId === id)?.startsAtMs ?? Number.POSITIVE_INFINITY;

describe('nextCheck over many windows, no one asking', () => {
  it.each([10, 30, 60, 100])('with %i watched events: every event within its bound, never under the minimum', (w) => {
    const list = events(w);
    const { checks, slotMs } = simulate(list, RULE, 400);
    const bound = Math.max(Math.ceil(w / 3) * MINUTE, RULE.minIntervalMs);
    expect(checkInterval(w, RULE)).toBe(bound);
    for (const [eventId, times] of checks) {
      expect(times.length, eventId).toBeGreaterThan(1);
      // The first check comes within the first round.
      expect((times[0] as number) - T0, eventId).toBeLessThanOrEqual(bound);
      for (const gap of gaps(times)) {
        expect(gap, eventId).toBeLessThanOrEqual(bound + slotMs);
        expect(gap, eventId).toBeGreaterThanOrEqual(RULE.minIntervalMs);
      }
      // No event waits past its bound at the end of the run either.
      expect(T0 + 400 * MINUTE - (times.at(-1) as number), eventId).toBeLessThanOrEqual(bound + slotMs);
    }
    // Events starting sooner get at least as many checks as later ones.
    const byStart = [...checks].sort(([a], [b]) => startOf(a, list) - startOf(b, list));
    byStart.slice(1).forEach(([eventId, times], i) => {
      expect(times.length, eventId).toBeLessThanOrEqual((byStart[i] as [string, number[]])[1].length);
    });
  });

  it('checks the never-checked events first, sooner-starting first', () => {
    const list = events(6);
    const order: string[] = [];
    for (let slot = 0; slot < 6; slot++) {
      const now = T0 + slot * 20_000;
      const next = nextCheck(list, now, RULE);
      expect(next?.dueAt).toBeLessThanOrEqual(now);
      order.push(next?.eventId as string);
      (list.find((c) => c.eventId === next?.eventId) as WatchCandidate).lastCheckedAt = now;
    }
    expect(order).toEqual(['evt_000', 'evt_001', 'evt_002', 'evt_003', 'evt_004', 'evt_005']);
  });

  it('uses a spare slot to check the soonest-starting event early, never sooner than the minimum interval', () => {
    // 10 events at 3 a minute go round in 4 minutes; with a 1 min minimum, 2 slots in 12 are spare.
    const rule: WatchScheduleRule = { limit: 3, windowMs: MINUTE, minIntervalMs: MINUTE };
    const list = events(10);
    const { checks, slotMs } = simulate(list, rule, 240);
    const bound = checkInterval(10, rule);
    expect(bound).toBe(4 * MINUTE);
    const soonest = checks.get('evt_000') as number[];
    const latest = checks.get('evt_009') as number[];
    expect(soonest.length).toBeGreaterThan(latest.length);
    for (const [eventId, times] of checks) {
      for (const gap of gaps(times)) {
        expect(gap, eventId).toBeGreaterThanOrEqual(rule.minIntervalMs);
        expect(gap, eventId).toBeLessThanOrEqual(bound + slotMs);
      }
    }
    // The soonest-starting event is checked early at least once (a gap under the round).
    expect(Math.min(...gaps(soonest))).toBeLessThan(bound);
  });

  it('keeps its bounds at the bench scale (1 s window standing for the minute)', () => {
    const rule: WatchScheduleRule = { limit: 3, windowMs: 1_000, minIntervalMs: 1_000 };
    for (const w of [1, 3, 30]) {
      const { checks, slotMs } = simulate(events(w), rule, 120);
      const bound = Math.max(Math.ceil(w / 3) * 1_000, 1_000);
      for (const times of checks.values())
        for (const gap of gaps(times)) {
          expect(gap).toBeLessThanOrEqual(bound + slotMs);
          expect(gap).toBeGreaterThanOrEqual(1_000);
        }
    }
  });

  it('checks an event with no start time too, after those that have one', () => {
    const list: WatchCandidate[] = [
      { eventId: 'evt_nostart', lastCheckedAt: undefined, startsAtMs: undefined },
      { eventId: 'evt_soon', lastCheckedAt: undefined, startsAtMs: T0 + DAY },
    ];
    expect(nextCheck(list, T0, RULE)?.eventId).toBe('evt_soon');
    const { checks } = simulate(list, RULE, 100);
    expect((checks.get('evt_nostart') as number[]).length).toBeGreaterThanOrEqual(9);
    for (const gap of gaps(checks.get('evt_nostart') as number[]))
      expect(gap).toBeLessThanOrEqual(10 * MINUTE + 20_000);
  });
});

describe('nextCheck, one step', () => {
  it('answers nothing when nothing is watched', () => {
    expect(nextCheck([], T0, RULE)).toBeUndefined();
  });

  it('a never-checked event is due now, keyed "never" and since when it is watched', () => {
    expect(nextCheck([{ eventId: 'evt_1', lastCheckedAt: undefined, startsAtMs: T0 }], T0, RULE)).toEqual({
      eventId: 'evt_1',
      dueAt: 0,
      dueKey: 'evt_1:never:unknown',
    });
    // Its watches all went and it is watched again: new work, not a check a claim settled before.
    const since = (watchedSince: number) =>
      nextCheck([{ eventId: 'evt_1', lastCheckedAt: undefined, watchedSince, startsAtMs: T0 }], T0, RULE)?.dueKey;
    expect(since(T0 - MINUTE)).toBe(`evt_1:never:${T0 - MINUTE}`);
    expect(since(T0)).not.toBe(since(T0 - MINUTE));
  });

  it('names the next due time when nothing is due, keyed by the last check (the same on every replica)', () => {
    const list: WatchCandidate[] = [
      { eventId: 'evt_1', lastCheckedAt: T0, startsAtMs: T0 + DAY },
      { eventId: 'evt_2', lastCheckedAt: T0 - MINUTE, startsAtMs: T0 + 2 * DAY },
    ];
    const next = nextCheck(list, T0 + MINUTE, RULE);
    expect(next).toEqual({
      eventId: 'evt_2',
      dueAt: T0 + 9 * MINUTE,
      dueKey: `evt_2:${T0 - MINUTE}`,
      lastCheckedAt: T0 - MINUTE,
    });
    expect(nextCheck(list.map((c) => ({ ...c })).reverse(), T0 + MINUTE, RULE)).toEqual(next);
  });

  it('among those due, takes the most overdue first, then the one starting sooner', () => {
    const list: WatchCandidate[] = [
      { eventId: 'evt_late', lastCheckedAt: T0, startsAtMs: T0 + 3 * DAY },
      { eventId: 'evt_soon', lastCheckedAt: T0, startsAtMs: T0 + DAY },
      { eventId: 'evt_overdue', lastCheckedAt: T0 - MINUTE, startsAtMs: T0 + 5 * DAY },
    ];
    expect(nextCheck(list, T0 + 20 * MINUTE, RULE)?.eventId).toBe('evt_overdue');
    expect(nextCheck(list.slice(0, 2), T0 + 20 * MINUTE, RULE)?.eventId).toBe('evt_soon');
  });

  it('ranks an event never checked by its deadline, an interval after it was first watched: behind checks due before it, ahead of those due after', () => {
    // Interval: 10 min. The checked event fell due 5 min ago (last checked 15 min ago).
    const checked = { eventId: 'evt_checked', lastCheckedAt: T0 - 15 * MINUTE, startsAtMs: T0 + DAY };
    const fresh = (watchedFor: number) => ({
      eventId: 'evt_new',
      lastCheckedAt: undefined,
      watchedSince: T0 - watchedFor,
      startsAtMs: T0 + 2 * DAY,
    });
    // Watched 4 min: its deadline is 6 min away, the overdue check goes first.
    expect(nextCheck([checked, fresh(4 * MINUTE)], T0, RULE)?.eventId).toBe('evt_checked');
    // Watched 16 min (people's reports kept the slots): overdue by 6 min, more than the other.
    expect(nextCheck([checked, fresh(16 * MINUTE)], T0, RULE)?.eventId).toBe('evt_new');
    // Not known since when (a record from before the upgrade, or rewritten by an older replica): it
    // may have waited since before, so it goes first, once.
    expect(nextCheck([checked, { ...fresh(0), watchedSince: undefined }], T0, RULE)?.eventId).toBe('evt_new');
    // Ahead of a check not yet due, however recently it was watched.
    const notDue = { ...checked, lastCheckedAt: T0 - 5 * MINUTE };
    expect(nextCheck([notDue, fresh(0)], T0, RULE)).toMatchObject({
      eventId: 'evt_new',
      dueKey: `evt_new:never:${T0}`,
    });
  });

  it('never checks early within the minimum interval', () => {
    const rule: WatchScheduleRule = { limit: 3, windowMs: MINUTE, minIntervalMs: 10 * MINUTE };
    const list: WatchCandidate[] = [{ eventId: 'evt_1', lastCheckedAt: T0, startsAtMs: T0 + DAY }];
    for (let now = T0; now < T0 + 10 * MINUTE; now += 20_000) {
      const next = nextCheck(list, now, rule);
      expect(next?.dueAt, String(now - T0)).toBe(T0 + 10 * MINUTE);
    }
    expect(nextCheck(list, T0 + 10 * MINUTE, rule)?.dueAt).toBe(T0 + 10 * MINUTE);
  });
});
