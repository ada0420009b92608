import { describe, expect, it } from 'vitest';
import { calendarDays, eventsByDay } from '../../src/catalog/calendar-days.js';
import { eventSchema, type TicketingEvent } from '../../src/ticketing/schemas.js';

let counter = 0;
function event(name: string, startDate: string, endDate: string, timezone = 'America/New_York'): TicketingEvent {
  counter += 1;
  return eventSchema.parse({
    id: `evt_00000000-0000-4000-8000-${String(counter).padStart(12, '0')}`,
    name,
    startDate,
    endDate,
    timezone,
  });
}

describe('a digest covers whole calendar days in its channel zone', () => {
  // 09:00 on Sunday 22 November 2026 in New York (14:00 UTC): the digest for "today".
  const now = Date.UTC(2026, 10, 22, 14, 0);
  const zone = 'America/New_York';
  const today = calendarDays({ year: 2026, month: 11, day: 22 }, 1, zone);
  const events = [
    event('All day today', '2026-11-22', '2026-11-22'),
    event('Festival that started Friday', '2026-11-20', '2026-11-24'),
    event('Festival starting today', '2026-11-22', '2026-11-25'),
    event('Tonight', '2026-11-22T19:00:00-05:00', '2026-11-22T22:00:00-05:00'),
    event('Running since 07:00', '2026-11-22T07:00:00-05:00', '2026-11-22T12:00:00-05:00'),
    event('Ended at 08:00', '2026-11-22T06:00:00-05:00', '2026-11-22T08:00:00-05:00'),
    event('All day tomorrow', '2026-11-23', '2026-11-23'),
    event('Tomorrow morning', '2026-11-23T09:00:00-05:00', '2026-11-23T10:00:00-05:00'),
    event('Ended yesterday', '2026-11-19', '2026-11-21'),
    event('Overnight into today', '2026-11-21T22:00:00-05:00', '2026-11-22T10:00:00-05:00'),
    event('Ends exactly at midnight', '2026-11-21T20:00:00-05:00', '2026-11-22T00:00:00-05:00'),
  ];

  it("lists today's timed, all-day and running multi-day events, and nothing of tomorrow or already ended", () => {
    const names = eventsByDay(events, today, zone, now).map((entry) => entry.event.name);
    expect(names.sort()).toEqual(
      [
        'All day today',
        'Festival starting today',
        'Festival that started Friday',
        'Overnight into today',
        'Running since 07:00',
        'Tonight',
      ].sort(),
    );
  });

  it('lists an event under the first day of the digest it touches, and orders days then starts', () => {
    const three = calendarDays({ year: 2026, month: 11, day: 22 }, 3, zone);
    const entries = eventsByDay(events, three, zone, now).map((entry) => [entry.day, entry.event.name]);
    expect(entries).toEqual([
      ['2026-11-22', 'Festival that started Friday'],
      ['2026-11-22', 'Overnight into today'],
      ['2026-11-22', 'All day today'],
      ['2026-11-22', 'Festival starting today'],
      ['2026-11-22', 'Running since 07:00'],
      ['2026-11-22', 'Tonight'],
      ['2026-11-23', 'All day tomorrow'],
      ['2026-11-23', 'Tomorrow morning'],
    ]);
  });

  it('reads a timed event in the channel zone: 23:30 in New York is the next day in Berlin', () => {
    const late = event('Late show', '2026-11-22T23:30:00-05:00', '2026-11-23T01:00:00-05:00');
    const berlinToday = calendarDays({ year: 2026, month: 11, day: 22 }, 1, 'Europe/Berlin');
    const berlinTomorrow = calendarDays({ year: 2026, month: 11, day: 23 }, 1, 'Europe/Berlin');
    expect(eventsByDay([late], today, zone, now)).toHaveLength(1);
    expect(eventsByDay([late], berlinToday, 'Europe/Berlin', now)).toHaveLength(0);
    expect(eventsByDay([late], berlinTomorrow, 'Europe/Berlin', now)).toHaveLength(1);
  });
});
