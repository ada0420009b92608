import type { TicketingEvent } from '../ticketing/schemas.js';

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

/** Edit distance with adjacent swaps (Damerau), stopping early past `max`. */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i += 1) {
    const row: number[] = [i];
    let best = i;
    for (let j = 1; j <= b.length; j += 1) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const previous = rows[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min((previous[j] as number) + 1, (row[j - 1] as number) + 1, (previous[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      }
      row.push(value);
      best = Math.min(best, value);
    }
    rows.push(row);
    if (i > 0 && best > max) return max + 1;
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/** Typos tolerated by a word's length: none under 4 letters, one up to 7, two from 8. */
function allowedTypos(word: string): number {
  if (word.length < 4) return 0;
  return word.length < 8 ? 1 : 2;
}

/** How well one typed word matches one word of a name: 3 exact, 2 prefix, 1 typo, 0 none. */
function wordScore(typed: string, word: string): number {
  if (typed === word) return 3;
  if (typed.length >= 3 && word.startsWith(typed)) return 2;
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
 * forgiven), best first, then soonest first. Events without a name never match words, and text
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
    for (const each of typed) {
      const best = Math.max(0, ...words.map((word) => wordScore(each, word)));
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
