import { describe, expect, it } from 'vitest';
import {
  addDays,
  epochOfWallTime,
  isoWithOffset,
  isValidTimeZone,
  parsePlainDate,
  startOfDay,
  zoneOffsetMinutes,
} from '../../src/time/zoned.js';

describe('zoned time', () => {
  it('knows half-hour and 45-minute offsets', () => {
    const instant = Date.UTC(2026, 11, 1, 12, 0);
    expect(zoneOffsetMinutes(instant, 'Asia/Kathmandu')).toBe(345);
    expect(zoneOffsetMinutes(instant, 'Asia/Kolkata')).toBe(330);
    expect(zoneOffsetMinutes(instant, 'America/St_Johns')).toBe(-210);
    expect(isoWithOffset(instant, 'Asia/Kathmandu')).toBe('2026-12-01T17:45:00+05:45');
    expect(isoWithOffset(instant, 'America/St_Johns')).toBe('2026-12-01T08:30:00-03:30');
  });

  it('round-trips wall times across a DST change', () => {
    // London springs forward at 01:00 UTC on 2027-03-28.
    const before = epochOfWallTime({ year: 2027, month: 3, day: 28, hour: 0, minute: 30, second: 0 }, 'Europe/London');
    const after = epochOfWallTime({ year: 2027, month: 3, day: 28, hour: 3, minute: 0, second: 0 }, 'Europe/London');
    expect(new Date(before).toISOString()).toBe('2027-03-28T00:30:00.000Z');
    expect(new Date(after).toISOString()).toBe('2027-03-28T02:00:00.000Z');
    // 01:30 does not exist that night: it resolves to the jump itself (01:00 GMT became 02:00 BST).
    const gap = epochOfWallTime({ year: 2027, month: 3, day: 28, hour: 1, minute: 30, second: 0 }, 'Europe/London');
    expect(isoWithOffset(gap, 'Europe/London')).toBe('2027-03-28T02:00:00+01:00');
  });

  it('starts a day at the zone midnight, not UTC midnight', () => {
    const day = { year: 2026, month: 6, day: 1 };
    expect(new Date(startOfDay(day, 'America/Los_Angeles')).toISOString()).toBe('2026-06-01T07:00:00.000Z');
    expect(addDays(day, 30)).toEqual({ year: 2026, month: 7, day: 1 });
  });

  it('validates zone names and plain dates', () => {
    expect(isValidTimeZone('UTC')).toBe(true);
    expect(isValidTimeZone('Asia/Kolkata')).toBe(true);
    expect(isValidTimeZone('Mars/Olympus')).toBe(false);
    expect(isValidTimeZone('')).toBe(false);
    expect(parsePlainDate('2026-02-29')).toBeUndefined();
    expect(parsePlainDate('2028-02-29')).toEqual({ year: 2028, month: 2, day: 29 });
  });
});
