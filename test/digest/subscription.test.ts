import { describe, expect, it } from 'vitest';
import type { DigestRunning } from '../../src/digest/digest-runner.js';
import { DigestScheduler } from '../../src/digest/digest-scheduler.js';
import { fireOn, latestFire, nextFire } from '../../src/digest/fire-times.js';
import {
  describeWeekdays,
  isoWeekday,
  newSubscription,
  parseWeekdays,
  type Subscription,
} from '../../src/digest/subscription.js';
import { silentLogger } from '../../src/logger.js';
import { digestStatusMessage } from '../../src/render/digest-blocks.js';
import { addDays, epochOfWallTime, type PlainDate, plainDateAt, zoneOffsetMinutes } from '../../src/time/zoned.js';

const LONDON = 'Europe/London';

describe('newSubscription', () => {
  const context = { channelId: 'C1', userId: 'U1', now: Date.UTC(2026, 10, 22) };
  const asked = { time: undefined, timezone: undefined, days: 1, skipEmpty: false };

  it('defaults to 09:00 in the zone the person named, else theirs, else UTC', () => {
    expect(newSubscription(asked, { ...context, personZone: undefined })).toMatchObject({
      subscription: { time: '09:00', timezone: 'UTC', createdBy: 'U1', status: 'active' },
      zoneSource: 'default',
    });
    expect(newSubscription(asked, { ...context, personZone: 'Asia/Kolkata' })).toMatchObject({
      subscription: { timezone: 'Asia/Kolkata' },
      zoneSource: 'person',
    });
    expect(
      newSubscription(
        { ...asked, time: '07:30', timezone: 'Europe/Berlin' },
        { ...context, personZone: 'Asia/Kolkata' },
      ),
    ).toMatchObject({ subscription: { time: '07:30', timezone: 'Europe/Berlin' }, zoneSource: 'named' });
  });
});

const sub = (time: string, timezone: string) => ({ time, timezone });

describe('digest schedule', () => {
  it('is due at the local time in each zone', () => {
    expect(new Date(fireOn(sub('09:00', 'Asia/Kathmandu'), { year: 2026, month: 12, day: 1 }).at).toISOString()).toBe(
      '2026-12-01T03:15:00.000Z',
    );
    expect(new Date(fireOn(sub('09:00', 'America/St_Johns'), { year: 2026, month: 12, day: 1 }).at).toISOString()).toBe(
      '2026-12-01T12:30:00.000Z',
    );
  });

  it('stays at 09:00 local on both DST-change days', () => {
    const london = sub('09:00', 'Europe/London');
    expect(new Date(fireOn(london, { year: 2027, month: 3, day: 27 }).at).toISOString()).toBe(
      '2027-03-27T09:00:00.000Z',
    );
    expect(new Date(fireOn(london, { year: 2027, month: 3, day: 28 }).at).toISOString()).toBe(
      '2027-03-28T08:00:00.000Z',
    );
    expect(new Date(fireOn(london, { year: 2026, month: 10, day: 25 }).at).toISOString()).toBe(
      '2026-10-25T09:00:00.000Z',
    );
  });

  it('knows the latest and the next fire around now', () => {
    const kathmandu = sub('09:00', 'Asia/Kathmandu');
    const before = Date.UTC(2026, 11, 1, 3, 0);
    expect(latestFire(kathmandu, before).date).toBe('2026-11-30');
    expect(nextFire(kathmandu, before).date).toBe('2026-12-01');
    expect(latestFire(kathmandu, Date.UTC(2026, 11, 1, 3, 15)).date).toBe('2026-12-01');
  });

  it('registers node-cron tasks that fire at 09:00 in their own zone, across DST', () => {
    const scheduler = new DigestScheduler({
      runner: { fire: async () => ({ kind: 'no-subscription' }) } as unknown as DigestRunning,
      logger: silentLogger,
      clock: { now: () => Date.now() },
    });
    const base: Omit<Subscription, 'channelId' | 'timezone'> = {
      time: '09:00',
      days: 1,
      skipEmpty: false,
      createdBy: 'U1',
      createdAt: '2026-11-22T00:00:00Z',
      status: 'active',
    };
    try {
      scheduler.schedule({ ...base, channelId: 'C_KTM', timezone: 'Asia/Kathmandu' });
      scheduler.schedule({ ...base, channelId: 'C_LON', timezone: 'Europe/London' });
      for (const run of scheduler.nextRuns('C_KTM', 3)) expect(run.toISOString()).toMatch(/T03:15:00\.000Z$/);
      // London's next clock change from today (never a fixed date, which a later run passes): 09:00
      // there the day before it and the day of it, each on its own offset.
      let day = plainDateAt(Date.now(), LONDON);
      const offsetOn = (date: PlainDate) =>
        zoneOffsetMinutes(Date.UTC(date.year, date.month - 1, date.day, 12), LONDON);
      while (offsetOn(addDays(day, 1)) === offsetOn(day)) day = addDays(day, 1);
      const nineOn = (date: PlainDate) =>
        new Date(epochOfWallTime({ ...date, hour: 9, minute: 0, second: 0 }, LONDON)).toISOString();
      const [before, after] = [nineOn(day), nineOn(addDays(day, 1))];
      expect(before.slice(11, 13)).not.toBe(after.slice(11, 13));
      const london = scheduler.nextRuns('C_LON', 240).map((d) => d.toISOString());
      expect(london).toContain(before);
      expect(london).toContain(after);
    } finally {
      scheduler.stop();
    }
  });
});

describe('digest filters in words', () => {
  it('reads and writes weekdays, and digest status shows the filter and the days', () => {
    expect(parseWeekdays('mon-fri')).toEqual([1, 2, 3, 4, 5]);
    expect(parseWeekdays('Sat,sun')).toEqual([6, 7]);
    expect(parseWeekdays('someday')).toBeUndefined();
    expect(describeWeekdays([1, 2, 3, 4, 5])).toBe('Mon-Fri');
    expect(describeWeekdays([1, 3, 5])).toBe('Mon, Wed, Fri');
    expect(isoWeekday('2026-11-22')).toBe(7);
    const status = digestStatusMessage({
      channelId: 'C1',
      time: '08:00',
      timezone: 'Europe/Berlin',
      days: 3,
      skipEmpty: false,
      createdBy: 'U1',
      createdAt: '2026-11-22T00:00:00Z',
      status: 'active',
      match: 'jazz <night>',
      weekdays: [1, 2, 3, 4, 5],
      nextAt: Date.UTC(2026, 10, 23, 7),
    });
    const text = JSON.stringify(status.blocks);
    expect(text).toContain('named like \\"jazz &lt;night&gt;\\"');
    expect(text).toContain('Days: Mon-Fri');
  });
});
