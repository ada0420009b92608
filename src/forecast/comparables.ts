import type { SalesPoint } from '../history/sales-point.js';
import type { FinishedEvent } from './forecast-types.js';
import { type FinishedSale, finishedSale, opensAtOf, soldIn } from './pickup.js';

/**
 * Where an event stands against the organization's similar finished events (issue 45): its share
 * sold at its time before the start, beside theirs at the same time before theirs (the lowest, the
 * median and the highest), and what they went on to sell. Pure: `now` given, no I/O.
 *
 * Similar: a capacity and a selling period within a factor of 2 of this one's (as the forecast
 * reads them), and, where both are known and enough remain, the same venue and the same weekday of
 * the start (in the event's zone). A finished event counts only where its history reaches back to
 * the same time before its start.
 */

/** Fewest similar finished events a comparison is made from. */
export const MIN_COMPARABLES = 3;

/** A finished event a comparison may read: the forecast's, with what the catalog knows of it. */
export interface ComparableEvent extends FinishedEvent {
  eventId?: string | undefined;
  venue?: string | undefined;
  /** Its zone, for the weekday of its start. */
  timezone?: string | undefined;
}

/** The event compared. */
export interface ComparablesInput {
  now: number;
  eventId?: string | undefined;
  startsAtMs: number;
  capacity: number | undefined;
  points: readonly SalesPoint[];
  venue?: string | undefined;
  timezone?: string | undefined;
  finished: readonly ComparableEvent[];
}

/** Shares of capacity (0 to 1): the lowest, the median, the highest. */
export interface Spread {
  low: number;
  median: number;
  high: number;
}

/** A similar finished event, as the comparison and the flatline odds read it. */
export interface Comparable {
  eventId: string | undefined;
  startsAtMs: number;
  capacity: number;
  /** Sold at its start. */
  final: number;
  opensAt: number | undefined;
  points: readonly SalesPoint[];
}

export type Comparables =
  /** Nothing to compare: no capacity, no sales history, or the event has started. */
  | { kind: 'none'; reason: string }
  /** Too few similar finished events: `found` of the `needs`. */
  | { kind: 'too-few'; found: number; needs: number; beforeMs: number; share: number }
  | {
      kind: 'compared';
      /** Time left before the start. */
      beforeMs: number;
      /** This event's share sold now. */
      share: number;
      /** This event's capacity. */
      capacity: number;
      /** How many similar events it is compared with. */
      count: number;
      /** Their shares at the same time before their start. */
      atThisPoint: Spread;
      /** Their shares at their start. */
      final: Spread;
      /** The narrowings that applied (same venue, same weekday), besides capacity and selling period. */
      alike: ('venue' | 'weekday')[];
      members: Comparable[];
    };

/** Within a factor of 2, as the forecast reads similar (`learned-forecast.ts`). */
const near = (a: number, b: number) => a > 0 && b > 0 && Math.max(a, b) / Math.min(a, b) <= 2;

const weekdayIn = (at: number, zone: string | undefined) => {
  try {
    return new Intl.DateTimeFormat('en-US', { weekday: 'short', timeZone: zone ?? 'UTC' }).format(at);
  } catch {
    return undefined;
  }
};

const sameText = (a: string | undefined, b: string | undefined) =>
  a !== undefined && b !== undefined && a.trim().toLowerCase() === b.trim().toLowerCase();

/** The lowest, median and highest of some values (at least one). */
function spreadOf(values: readonly number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  const half = (sorted.length - 1) / 2;
  return {
    low: sorted[0] as number,
    median: ((sorted[Math.floor(half)] as number) + (sorted[Math.ceil(half)] as number)) / 2,
    high: sorted[sorted.length - 1] as number,
  };
}

/** A comparable's share of its capacity sold `beforeMs` before its start; undefined before its history. */
export function shareBefore(member: Comparable, beforeMs: number): number | undefined {
  const sold = soldIn(member, member.startsAtMs - beforeMs);
  return sold === undefined ? undefined : Math.min(1, sold / member.capacity);
}

const memberOf = (event: ComparableEvent, sale: FinishedSale): Comparable => ({
  eventId: event.eventId,
  startsAtMs: sale.startsAtMs,
  capacity: sale.capacity as number,
  final: sale.final,
  opensAt: sale.opensAt,
  points: sale.points,
});

/** Where the event stands against its similar finished events now. */
export function comparables(input: ComparablesInput, options: { minComparables?: number } = {}): Comparables {
  const needs = options.minComparables ?? MIN_COMPARABLES;
  const { now, startsAtMs, points } = input;
  const first = points[0];
  const last = points[points.length - 1];
  if (!first || !last) return { kind: 'none', reason: 'no sales history yet' };
  const capacity = input.capacity ?? last.capacity;
  if (capacity === undefined || capacity <= 0) return { kind: 'none', reason: 'the report has no capacity' };
  if (now >= startsAtMs) return { kind: 'none', reason: 'the event has started' };
  const opensAt = opensAtOf(points);
  const sale = { startsAtMs, capacity, points, opensAt };
  const share = Math.min(1, (soldIn(sale, now) ?? last.sold) / capacity);
  const beforeMs = startsAtMs - now;
  const period = startsAtMs - (opensAt ?? first.at);

  const candidates: { event: ComparableEvent; member: Comparable }[] = [];
  for (const event of input.finished) {
    if (input.eventId !== undefined && event.eventId === input.eventId) continue;
    const finished = finishedSale(event);
    if (!finished || finished.capacity === undefined || finished.capacity <= 0) continue;
    const theirPeriod = finished.startsAtMs - (finished.opensAt ?? finished.points[0]?.at ?? finished.startsAtMs);
    if (!near(finished.capacity, capacity) || !near(theirPeriod, period)) continue;
    const member = memberOf(event, finished);
    // Only those whose history reaches back to the same time before their start.
    if (shareBefore(member, beforeMs) === undefined) continue;
    candidates.push({ event, member });
  }
  const weekday = weekdayIn(startsAtMs, input.timezone);
  const byVenue = (c: (typeof candidates)[number]) => sameText(c.event.venue, input.venue);
  const byWeekday = (c: (typeof candidates)[number]) =>
    c.event.timezone !== undefined &&
    weekday !== undefined &&
    weekdayIn(c.event.startsAtMs, c.event.timezone) === weekday;
  // The narrowest set with enough events: same venue and weekday, same venue, same weekday, or all.
  const narrowings: [('venue' | 'weekday')[], (c: (typeof candidates)[number]) => boolean][] = [
    [['venue', 'weekday'], (c) => byVenue(c) && byWeekday(c)],
    [['venue'], byVenue],
    [['weekday'], byWeekday],
  ];
  let chosen = candidates;
  let alike: ('venue' | 'weekday')[] = [];
  for (const [names, keep] of narrowings) {
    const kept = candidates.filter(keep);
    if (kept.length >= needs) {
      chosen = kept;
      alike = names;
      break;
    }
  }
  if (chosen.length < needs) return { kind: 'too-few', found: chosen.length, needs, beforeMs, share };
  const members = chosen.map((c) => c.member);
  const sharesThen = members.map((m) => shareBefore(m, beforeMs) as number);
  return {
    kind: 'compared',
    beforeMs,
    share,
    capacity,
    count: members.length,
    atThisPoint: spreadOf(sharesThen),
    final: spreadOf(members.map((m) => Math.min(1, m.final / m.capacity))),
    alike,
    members,
  };
}

/**
 * The similar events' spread at each of `times` of this event (the same time before their start),
 * from those whose history reaches back to it; undefined where none does.
 */
export function similarBand(
  compared: Extract<Comparables, { kind: 'compared' }>,
  startsAtMs: number,
  times: readonly number[],
): (Spread | undefined)[] {
  return times.map((at) => {
    const theirs = compared.members.flatMap((m) => shareBefore(m, Math.max(0, startsAtMs - at)) ?? []);
    return theirs.length > 0 ? spreadOf(theirs) : undefined;
  });
}
