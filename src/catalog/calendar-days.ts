import type { TicketingEvent } from '../ticketing/schemas.js';
import { addDays, formatPlainDate, type PlainDate, plainDateAt, startOfDay } from '../time/zoned.js';
import { isListedUpcoming } from './is-upcoming.js';

/**
 * Whole calendar days in one zone (a digest's channel, a reader of `/events list today`), and
 * which events touch them.
 */
export interface CalendarDays {
  /** First day (`YYYY-MM-DD`). */
  first: string;
  /** Last day, inclusive. */
  last: string;
  /** The instants the first day begins and the day after the last begins, in the zone. */
  startMs: number;
  endMs: number;
}

/** `days` calendar days from `date` in `zone`: `days = 1` is that date alone. */
export function calendarDays(date: PlainDate, days: number, zone: string): CalendarDays {
  return {
    first: formatPlainDate(date),
    last: formatPlainDate(addDays(date, days - 1)),
    startMs: startOfDay(date, zone),
    endMs: startOfDay(addDays(date, days), zone),
  };
}

/**
 * The days an event touches, as dates: a date-only bound is a calendar date wherever it is read
 * (an all-day event on the 22nd is on the 22nd), a timed bound is read in the channel's zone.
 */
function eventDates(event: TicketingEvent, zone: string): { first: string; last: string } {
  const first = event.start.kind === 'date' ? event.start.iso : formatPlainDate(plainDateAt(event.startsAtMs, zone));
  // A timed end is exclusive: an event ending at midnight does not touch the next day.
  const last =
    event.end.kind === 'date'
      ? event.end.iso
      : formatPlainDate(plainDateAt(Math.max(event.startsAtMs, event.endsAtMs - 1), zone));
  return { first, last };
}

/**
 * The day of the digest under which an event is listed: the first of its days that the digest
 * covers. `undefined` when it touches none of them or has ended by `now`.
 */
export function firstDayTouched(
  event: TicketingEvent,
  days: CalendarDays,
  zone: string,
  now: number,
): string | undefined {
  if (!isListedUpcoming(event, now)) return undefined;
  const dates = eventDates(event, zone);
  if (dates.first > days.last || dates.last < days.first) return undefined;
  return dates.first > days.first ? dates.first : days.first;
}

/** An event with the digest day it is listed under. */
export interface DayEntry {
  event: TicketingEvent;
  day: string;
}

/** Every event the digest lists (drafts left out), by day, then by start (ongoing first), then by id. */
export function eventsByDay(
  events: readonly TicketingEvent[],
  days: CalendarDays,
  zone: string,
  now: number,
): DayEntry[] {
  const entries: DayEntry[] = [];
  for (const event of events) {
    if (event.status === 'draft') continue;
    const day = firstDayTouched(event, days, zone, now);
    if (day) entries.push({ event, day });
  }
  return entries.sort(
    (a, b) =>
      a.day.localeCompare(b.day) || a.event.startsAtMs - b.event.startsAtMs || a.event.id.localeCompare(b.event.id),
  );
}
