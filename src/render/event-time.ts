import { LRUCache } from 'lru-cache';
import type { EventMoment, TicketingEvent } from '../ticketing/schemas.js';
import { formatUtcOffset, type PlainDate, zoneOffsetMinutes } from '../time/zoned.js';

const LOCALE = 'en-GB';
const cache = new Map<string, Intl.DateTimeFormat>();

function formatter(key: string, options: Intl.DateTimeFormatOptions, locale = LOCALE): Intl.DateTimeFormat {
  let found = cache.get(key);
  if (!found) {
    found = new Intl.DateTimeFormat(locale, options);
    cache.set(key, found);
  }
  return found;
}

const dateTime = (timeZone: string) =>
  formatter(`dt:${timeZone}`, {
    timeZone,
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  });

const plainDay = () =>
  formatter('day', { timeZone: 'UTC', weekday: 'short', day: 'numeric', month: 'short', year: 'numeric' });

/** The zone's own abbreviation where one is in common use (EST, BST, AEDT), else undefined. */
function abbreviation(epochMs: number, timeZone: string): string | undefined {
  // Each locale knows its own region's names; all write "GMT+5:45" where they know none.
  for (const locale of ['en-US', 'en-GB', 'en-AU', 'en-IN']) {
    const name = formatter(`abbr:${locale}:${timeZone}`, { timeZone, timeZoneName: 'short' }, locale)
      .formatToParts(epochMs)
      .find((part) => part.type === 'timeZoneName')?.value;
    if (name && /^[A-Z]{2,5}$/.test(name) && name !== 'UTC') return name;
  }
  return undefined;
}

/**
 * A zone's names by offset: its abbreviation follows the offset in force (EST at -05:00, EDT at
 * -04:00), and finding it formats the instant in four locales, the slowest step of an event list
 * (profiled: issue 44 item 9). A few entries a zone and year.
 */
const zoneNamesByOffset = new LRUCache<string, { abbreviation: string | null; offset: string }>({ max: 2_000 });

function zoneNames(epochMs: number, timeZone: string): { abbreviation: string | null; offset: string } {
  const offsetMinutes = zoneOffsetMinutes(epochMs, timeZone);
  // The year too: a zone that changed its rules names the same offset otherwise (America/Ciudad_Juarez
  // at -06:00 was CST in 2022 and is MDT since).
  const key = `${offsetMinutes} ${new Date(epochMs).getUTCFullYear()} ${timeZone}`;
  let names = zoneNamesByOffset.get(key);
  if (!names) {
    names = { abbreviation: abbreviation(epochMs, timeZone) ?? null, offset: `UTC${formatUtcOffset(offsetMinutes)}` };
    zoneNamesByOffset.set(key, names);
  }
  return names;
}

/** `EST, UTC-05:00` where the zone has a well-known abbreviation, else `UTC+05:45`. */
export function zoneLabel(epochMs: number, timeZone: string): string {
  const { abbreviation, offset } = zoneNames(epochMs, timeZone);
  return abbreviation ? `${abbreviation}, ${offset}` : offset;
}

/** A plain date as the calendar shows it: never shifted by a zone. */
function plainDateToUtcNoon(date: PlainDate): number {
  return Date.UTC(date.year, date.month - 1, date.day, 12);
}

/**
 * When an event happens, in the event's own zone: `Tue 1 Dec 2026, 19:00–22:00 (UTC+05:45,
 * Asia/Kathmandu)`. Start and end get their own offset when a DST change falls between them;
 * plain-date events read as a date range with no time and no shift.
 */
export function describeEventTime(event: TicketingEvent): string {
  // Intl puts thin and narrow no-break spaces around range dashes; plain spaces read the same everywhere.
  return remembered('long', event, () => describe(event).replace(/[\u2009\u202f]/g, ' '));
}

/**
 * Event times already described, by form, start, end and zone: every list, card, picker and search
 * result describes the same events again, and `formatRange` is ICU's slowest formatter (profiled:
 * issue 44 item 9). The words depend on nothing else, so an entry never goes stale.
 */
const descriptions = new LRUCache<string, string>({ max: 5_000 });

function remembered(form: 'long' | 'short', event: TicketingEvent, describe: () => string): string {
  // What the descriptions read: a plain date's own text, else the instant.
  const at = (moment: EventMoment, epochMs: number) => (moment.kind === 'date' ? moment.iso : String(epochMs));
  const key = `${form} ${at(event.start, event.startsAtMs)} ${at(event.end, event.endsAtMs)} ${event.timezone}`;
  let description = descriptions.get(key);
  if (description === undefined) {
    description = describe();
    descriptions.set(key, description);
  }
  return description;
}

function describe(event: TicketingEvent): string {
  const zone = event.timezone;
  if (event.start.kind === 'date' || event.end.kind === 'date') {
    const start = event.start.kind === 'date' ? plainDateToUtcNoon(event.start.date) : event.startsAtMs;
    const end = event.end.kind === 'date' ? plainDateToUtcNoon(event.end.date) : event.endsAtMs;
    const range = start === end ? plainDay().format(start) : plainDay().formatRange(start, end);
    return `${range} (all day, ${zone})`;
  }
  const startLabel = zoneLabel(event.startsAtMs, zone);
  const endLabel = zoneLabel(event.endsAtMs, zone);
  if (startLabel === endLabel) {
    return `${dateTime(zone).formatRange(event.startsAtMs, event.endsAtMs)} (${startLabel}, ${zone})`;
  }
  // A DST change during the event: each end carries its own offset.
  return `${dateTime(zone).format(event.startsAtMs)} (${startLabel}) – ${dateTime(zone).format(event.endsAtMs)} (${endLabel}), ${zone}`;
}

/**
 * When an event happens, short enough for a picker option: `Tue, 1 Dec 2026, 19:00–22:00 GMT`,
 * with the zone's abbreviation or its offset (`UTC+05:45`); plain-date events as dates, all day.
 */
export function shortEventTime(event: TicketingEvent): string {
  const zone = event.timezone;
  if (event.start.kind === 'date' || event.end.kind === 'date') return describeEventTime(event).split(' (')[0] ?? '';
  return remembered('short', event, () => {
    const short = (epochMs: number) => {
      const names = zoneNames(epochMs, zone);
      return names.abbreviation ?? names.offset;
    };
    const [start, end] = [short(event.startsAtMs), short(event.endsAtMs)];
    const text =
      start === end
        ? `${dateTime(zone).formatRange(event.startsAtMs, event.endsAtMs)} ${start}`
        : `${dateTime(zone).format(event.startsAtMs)} ${start} – ${dateTime(zone).format(event.endsAtMs)} ${end}`;
    return text.replace(/[\u2009\u202f]/g, ' ');
  });
}
