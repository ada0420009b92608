import type { TicketingEvent } from '../ticketing/schemas.js';
import { editDistance, typoDistance } from './did-you-mean.js';

export { editDistance };

/**
 * The most characters of search text a person may type (a command's words, the event picker's
 * query, a digest's `--match`): past it, fuzzy matching costs grow with no better answer.
 */
export const MAX_SEARCH_TEXT = 200;

/**
 * What is wrong with search text a person typed, in words; undefined when it can be searched.
 * Counted in UTF-16 units, as the stored digest's `match` schema counts (an emoji is two).
 */
export function searchTextProblem(text: string): string | undefined {
  if (text.length <= MAX_SEARCH_TEXT) return undefined;
  return `Search words are limited to ${MAX_SEARCH_TEXT} characters (you typed ${text.length}): a few words of the event's name are enough.`;
}

/**
 * Lower case, accents off (`Café` → `cafe`), compatibility forms folded (full-width `ｃａｆｅ` →
 * `cafe`: NFKD, not NFD), split on anything that is not a letter or digit. Names and queries both
 * go through here, so they always meet in the same form.
 */
export function searchWords(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/\p{Diacritic}/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/** A name's words, worked out once per event record (a catalog snapshot's records are reused). */
const wordsByEvent = new WeakMap<TicketingEvent, string[]>();
function nameWords(event: TicketingEvent, name: string): string[] {
  let words = wordsByEvent.get(event);
  if (!words) {
    words = searchWords(name);
    wordsByEvent.set(event, words);
  }
  return words;
}

/** Typos tolerated by a word's length: none under 4 letters, one up to 7, two from 8. */
function allowedTypos(word: string): number {
  if (word.length < 4) return 0;
  return word.length < 8 ? 1 : 2;
}

/**
 * How well one typed word matches one word of a name: 3 exact, 2 prefix, 1 typo, 0 none. A prefix
 * needs 3 letters, but the last word typed may be begun with any (`winter g`): the person is
 * still typing it, in a picker's typeahead as in a command.
 */
function wordScore(typed: string, word: string, last: boolean): number {
  if (typed === word) return 3;
  if ((last || typed.length >= 3) && word.startsWith(typed)) return 2;
  const typos = allowedTypos(typed);
  if (typos > 0 && editDistance(typed, word, typos) <= typos) return 1;
  return 0;
}

export interface SearchMatch {
  event: TicketingEvent;
  /** Higher is better: exact words beat prefixes beat typos. */
  score: number;
}

/**
 * Events whose name matches every typed word (in any order; case, accents and small typos
 * forgiven; the last word may be the start of one of any length), best first, then soonest first. Events without a name never match words, and text
 * over `MAX_SEARCH_TEXT` matches nothing (commands say why first; a picker simply offers nothing).
 */
export function searchEvents(events: readonly TicketingEvent[], query: string): SearchMatch[] {
  if (searchTextProblem(query)) return [];
  const typed = searchWords(query);
  if (typed.length === 0) return [];
  const matches: SearchMatch[] = [];
  for (const event of events) {
    if (!event.name) continue;
    const words = nameWords(event, event.name);
    let score = 0;
    for (const [index, each] of typed.entries()) {
      const last = index === typed.length - 1;
      const best = Math.max(0, ...words.map((word) => wordScore(each, word, last)));
      if (best === 0) {
        score = 0;
        break;
      }
      score += best;
    }
    if (score > 0) matches.push({ event, score });
  }
  return matches.sort(
    (a, b) => b.score - a.score || a.event.startsAtMs - b.event.startsAtMs || a.event.id.localeCompare(b.event.id),
  );
}

/** Most events a "did you mean" offers. */
const MAX_CLOSE_EVENTS = 5;

/**
 * When words match no event: the events whose names come closest, for a "did you mean". A typed
 * word is near a name's word when it is a prefix of it, when the typos its length forgives (one
 * from three letters, two from seven: a little more than the search) separate them, or when it is
 * two of the name's words run together. The events with the most typed words near their names are
 * offered, nearest first, then soonest, and only when at least half of the words are near (one
 * word of three is no guess). Pure, over the catalog in memory: no call.
 */
export function closeEvents(
  events: readonly TicketingEvent[],
  query: string,
  max = MAX_CLOSE_EVENTS,
): TicketingEvent[] {
  if (searchTextProblem(query)) return [];
  const typed = searchWords(query);
  if (typed.length === 0) return [];
  const needed = Math.ceil(typed.length / 2);
  let best = needed;
  let close: { event: TicketingEvent; typos: number }[] = [];
  for (const event of events) {
    if (!event.name) continue;
    const words = nameWords(event, event.name);
    const joined = joinedWords(event, words);
    let near = 0;
    let typos = 0;
    for (const each of typed) {
      const distance = nearness(each, words, joined);
      if (distance === undefined) continue;
      near += 1;
      typos += distance;
    }
    if (near < best) continue;
    if (near > best) {
      best = near;
      close = [];
    }
    close.push({ event, typos });
  }
  return close
    .sort(
      (a, b) => a.typos - b.typos || a.event.startsAtMs - b.event.startsAtMs || a.event.id.localeCompare(b.event.id),
    )
    .slice(0, max)
    .map((each) => each.event);
}

/** Each two neighbouring words of a name run together (`jazznight`), worked out once per event record. */
const joinedByEvent = new WeakMap<TicketingEvent, string[]>();
function joinedWords(event: TicketingEvent, words: readonly string[]): string[] {
  let joined = joinedByEvent.get(event);
  if (!joined) {
    joined = words.slice(1).map((word, index) => `${words[index]}${word}`);
    joinedByEvent.set(event, joined);
  }
  return joined;
}

/** The fewest typos between a typed word and a name's words (or two of them run together), if any is near. */
function nearness(typed: string, words: readonly string[], joined: readonly string[]): number | undefined {
  let best: number | undefined;
  for (const list of [words, joined]) {
    for (const word of list) {
      const distance = typed.length >= 3 && word.startsWith(typed) ? 0 : typoDistance(typed, word);
      if (distance === 0) return 0;
      if (distance !== undefined && (best === undefined || distance < best)) best = distance;
    }
  }
  return best;
}
