/**
 * Wall-clock arithmetic in IANA zones with nothing but `Intl`: the engine's tz database is the
 * source of truth, so +05:45, -03:30 and DST days come out right without a date library.
 */

import { LRUCache } from 'lru-cache';

const formatters = new Map<string, Intl.DateTimeFormat>();

function partsFormatter(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** A local calendar date and time of day, as a person in the zone reads it. */
export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** True when the engine knows `zone` (an invalid name makes `Intl` throw `RangeError`). */
export function isValidTimeZone(zone: string): boolean {
  if (zone.trim() === '') return false;
  try {
    partsFormatter(zone);
    return true;
  } catch {
    return false;
  }
}

/**
 * Wall times already read, by zone and whole second. The same instants are read again and again
 * (each event's start and end, by every list, card, filter and digest), and `formatToParts` is
 * the slow part of a command (profiled: issue 16 item 13); a zone's rules never change while the
 * process runs.
 */
const wallTimes = new LRUCache<string, Readonly<WallTime>>({ max: 20_000 });

/** The local wall time of an instant in `zone`. */
export function wallTimeAt(epochMs: number, zone: string): Readonly<WallTime> {
  const key = `${Math.floor(epochMs / 1000)} ${zone}`;
  const known = wallTimes.get(key);
  if (known) return known;
  const fields: Record<string, number> = {};
  for (const part of partsFormatter(zone).formatToParts(epochMs)) {
    if (part.type !== 'literal') fields[part.type] = Number(part.value);
  }
  const wall = Object.freeze({
    year: fields.year ?? 0,
    month: fields.month ?? 1,
    day: fields.day ?? 1,
    hour: fields.hour ?? 0,
    minute: fields.minute ?? 0,
    second: fields.second ?? 0,
  });
  wallTimes.set(key, wall);
  return wall;
}

/** Minutes east of UTC in force in `zone` at the instant. */
export function zoneOffsetMinutes(epochMs: number, zone: string): number {
  const wall = wallTimeAt(epochMs, zone);
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  const wholeSeconds = Math.floor(epochMs / 1000) * 1000;
  return Math.round((asUtc - wholeSeconds) / 60_000);
}

/**
 * The instant at which `zone` shows the given wall time. A time skipped by a DST jump resolves
 * to the instant of the jump (02:30 on a spring-forward day is when 02:00 became 03:00), so a
 * day still starts and a daily time still comes; a repeated time resolves to its first occurrence.
 */
export function epochOfWallTime(wall: WallTime, zone: string): number {
  const naive = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  const offsetBefore = zoneOffsetMinutes(naive - 36 * 3_600_000, zone);
  const offsetAfter = zoneOffsetMinutes(naive + 36 * 3_600_000, zone);
  const candidates = [naive - offsetBefore * 60_000, naive - offsetAfter * 60_000];
  const exact = candidates
    .filter((epoch) => zoneOffsetMinutes(epoch, zone) * 60_000 === naive - epoch)
    .sort((a, b) => a - b);
  if (exact[0] !== undefined) return exact[0];
  // In a spring-forward gap neither offset reproduces the wall time. The jump lies between the
  // two readings; find the first instant on the new offset.
  let before = Math.min(...candidates);
  let after = Math.max(...candidates);
  const late = zoneOffsetMinutes(after, zone);
  while (after - before > 1_000) {
    const middle = Math.floor((before + after) / 2);
    if (zoneOffsetMinutes(middle, zone) === late) after = middle;
    else before = middle;
  }
  return Math.ceil(after / 1_000) * 1_000;
}

/** `+05:45`, `-03:30`, `+00:00`. */
export function formatUtcOffset(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  const hh = String(Math.floor(abs / 60)).padStart(2, '0');
  const mm = String(abs % 60).padStart(2, '0');
  return `${sign}${hh}:${mm}`;
}

/** ISO 8601 with the zone's local offset, as the service writes instants: `2026-12-01T19:00:00+05:45`. */
export function isoWithOffset(epochMs: number, zone: string): string {
  const w = wallTimeAt(epochMs, zone);
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  const date = `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}`;
  const time = `${pad(w.hour)}:${pad(w.minute)}:${pad(w.second)}`;
  return `${date}T${time}${formatUtcOffset(zoneOffsetMinutes(epochMs, zone))}`;
}

/** A plain calendar date `YYYY-MM-DD`; never turned into an instant without a zone. */
export interface PlainDate {
  year: number;
  month: number;
  day: number;
}

export function parsePlainDate(text: string): PlainDate | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const probe = new Date(Date.UTC(year, month - 1, day));
  if (probe.getUTCFullYear() !== year || probe.getUTCMonth() !== month - 1 || probe.getUTCDate() !== day) {
    return undefined;
  }
  return { year, month, day };
}

export function formatPlainDate(date: PlainDate): string {
  return `${String(date.year).padStart(4, '0')}-${String(date.month).padStart(2, '0')}-${String(date.day).padStart(2, '0')}`;
}

/** The calendar date `days` after `date` (negative goes back). */
export function addDays(date: PlainDate, days: number): PlainDate {
  const shifted = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return { year: shifted.getUTCFullYear(), month: shifted.getUTCMonth() + 1, day: shifted.getUTCDate() };
}

/** The calendar date that `zone` shows at the instant. */
export function plainDateAt(epochMs: number, zone: string): PlainDate {
  const { year, month, day } = wallTimeAt(epochMs, zone);
  return { year, month, day };
}

/** The instant `zone`'s day `date` begins (not always 00:00 where DST starts at midnight). */
export function startOfDay(date: PlainDate, zone: string): number {
  return epochOfWallTime({ ...date, hour: 0, minute: 0, second: 0 }, zone);
}
