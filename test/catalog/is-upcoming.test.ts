import { describe, expect, it } from 'vitest';
import { calendarDays, eventsByDay } from '../../src/catalog/calendar-days.js';
import { upcomingEvents } from '../../src/catalog/find-events.js';
import { eventSchema } from '../../src/ticketing/schemas.js';

const NOW = Date.parse('2026-11-27T09:00:00Z');
const event = (n: number, status: string) =>
  eventSchema.parse({
    id: `evt_3f2c1a9e-8b7d-4c6e-9f01-00000000000${n}`,
    name: `Event ${n}`,
    status,
    startDate: '2026-11-28T13:15:00Z',
    endDate: '2026-11-28T16:15:00Z',
    timezone: 'UTC',
  });

describe('a cancelled event', () => {
  const events = [event(1, 'published'), event(2, 'cancelled')];

  it('is not listed as upcoming', () => {
    const listed = upcomingEvents({ events, asOf: NOW } as never, {}, 'UTC', NOW);
    expect(listed.map((each) => each.name)).toEqual(['Event 1']);
  });

  it('is not in a digest', () => {
    const days = calendarDays({ year: 2026, month: 11, day: 27 }, 3, 'UTC');
    expect(eventsByDay(events, days, 'UTC', NOW).map((each) => each.event.name)).toEqual(['Event 1']);
  });
});
