import type { TicketingEvent } from '../ticketing/schemas.js';
import { addDays, plainDateAt } from '../time/zoned.js';
import { calendarDays, firstDayTouched } from './calendar-days.js';
import type { CatalogSnapshot, EventCatalog, ReadOptions } from './event-catalog.js';
import { closeEvents, searchEvents } from './event-search.js';
import { isListedUpcoming } from './is-upcoming.js';

/** An event named by its id (with or without prefix) or by words of its name. */
export type EventTarget = { id: string } | { words: string };

/** What a target is called back to the person: the id or the words as they typed them. */
export const targetText = (target: EventTarget): string => ('id' in target ? target.id : target.words);

export type Resolved =
  | { kind: 'found'; event: TicketingEvent; asOf: number }
  | { kind: 'choices'; events: TicketingEvent[]; asOf: number }
  /** `closest`: for words, the events whose names come closest (a "did you mean"), if any. */
  | { kind: 'none'; asOf: number; closest?: TicketingEvent[] };

/** Most events offered when words match several. */
export const MAX_CHOICES = 10;

/**
 * One event for an id or for words: one match acts, several are choices, none says so (with the
 * events whose names come closest to the words, from the same snapshot: no further call).
 */
export async function resolveEvent(
  catalog: EventCatalog,
  target: EventTarget,
  options: ReadOptions = {},
): Promise<Resolved> {
  if ('id' in target) {
    const found = await catalog.lookup(target.id, options);
    return found.event ? { kind: 'found', event: found.event, asOf: found.asOf } : { kind: 'none', asOf: found.asOf };
  }
  const snapshot = await catalog.snapshot(options);
  const matches = searchEvents(snapshot.events, target.words);
  const [first, second] = matches;
  if (!first) return { kind: 'none', asOf: snapshot.asOf, closest: closeEvents(snapshot.events, target.words) };
  // A clearly better match (all words exact) acts even when weaker ones exist.
  if (!second || first.score > second.score + 1) return { kind: 'found', event: first.event, asOf: snapshot.asOf };
  return { kind: 'choices', events: matches.slice(0, MAX_CHOICES).map((m) => m.event), asOf: snapshot.asOf };
}

/** The day ranges a list can be narrowed to, in the reader's zone: the one list of them. */
export const DAY_RANGES = ['today', 'tomorrow', 'week'] as const;

/** `today`, `tomorrow` or `week` (today and the next six days), in the reader's zone. */
export type DayRange = (typeof DAY_RANGES)[number];

/** The day range a word names exactly, if any. */
export function parseDayRange(word: unknown): DayRange | undefined {
  return DAY_RANGES.find((each) => each === word);
}

export interface ListFilter {
  range?: DayRange | undefined;
  words?: string | undefined;
}

/**
 * Upcoming events (not yet ended), soonest first across the whole catalog, narrowed by a day
 * range in `zone` and by words of their name.
 */
export function upcomingEvents(
  snapshot: CatalogSnapshot,
  filter: ListFilter,
  zone: string,
  now: number,
): TicketingEvent[] {
  let events = snapshot.events.filter((event) => isListedUpcoming(event, now));
  if (filter.range) {
    const today = plainDateAt(now, zone);
    const first = filter.range === 'tomorrow' ? addDays(today, 1) : today;
    const days = calendarDays(first, filter.range === 'week' ? 7 : 1, zone);
    events = events.filter((event) => firstDayTouched(event, days, zone, now) !== undefined);
  }
  if (filter.words?.trim()) {
    const matching = new Set(searchEvents(events, filter.words).map((match) => match.event.id));
    events = events.filter((event) => matching.has(event.id));
  }
  return events;
}
