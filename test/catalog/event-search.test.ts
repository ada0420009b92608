import { describe, expect, it } from 'vitest';
import {
  editDistance,
  MAX_SEARCH_TEXT,
  searchEvents,
  searchTextProblem,
  searchWords,
} from '../../src/catalog/event-search.js';
import { eventSchema, type TicketingEvent } from '../../src/ticketing/schemas.js';

let counter = 0;
const event = (name: string | undefined, start = '2026-12-01T10:00:00Z'): TicketingEvent => {
  counter += 1;
  return eventSchema.parse({
    id: `evt_00000000-0000-4000-8000-${String(counter).padStart(12, '0')}`,
    ...(name ? { name } : {}),
    startDate: start,
    endDate: '2026-12-31T10:00:00Z',
    timezone: 'UTC',
  });
};

describe('searchEvents', () => {
  const events = [
    event('Jazz Night at the Café Müller'),
    event('Rock & Roll Festival'),
    event('Spring Festival of Lights', '2026-11-30T10:00:00Z'),
    event('Festival of Jazz', '2026-12-02T10:00:00Z'),
    event(undefined),
  ];
  const names = (query: string) => searchEvents(events, query).map((match) => match.event.name);

  it('ignores case and accents, and takes the words in any order', () => {
    expect(searchWords('Café MÜLLER')).toEqual(['cafe', 'muller']);
    expect(names('cafe muller')).toEqual(['Jazz Night at the Café Müller']);
    expect(names('NIGHT jazz')).toEqual(['Jazz Night at the Café Müller']);
  });

  it('matches word prefixes and forgives small typos', () => {
    expect(names('fest rock')).toEqual(['Rock & Roll Festival']);
    expect(names('festivl rock')).toEqual(['Rock & Roll Festival']);
    expect(names('jaz')).toEqual(['Jazz Night at the Café Müller', 'Festival of Jazz']);
    // Under three letters only the last word is taken as a prefix: the one still being typed.
    expect(names('ja rock')).toEqual([]);
  });

  it('takes the last word as the start of a name word, however short (winter g, jazz ni)', () => {
    expect(names('jazz ni')).toEqual(['Jazz Night at the Café Müller']);
    expect(names('spring f')).toEqual(['Spring Festival of Lights']);
    expect(names('festival o')).toEqual(['Spring Festival of Lights', 'Festival of Jazz']);
    expect(names('ja')).toEqual(['Jazz Night at the Café Müller', 'Festival of Jazz']);
    expect(names('jazz x')).toEqual([]);
  });

  it('ranks exact words first, then sooner events', () => {
    expect(names('festival')).toEqual(['Spring Festival of Lights', 'Rock & Roll Festival', 'Festival of Jazz']);
    expect(names('jazz')[0]).toBe('Jazz Night at the Café Müller');
  });

  it('matches nothing for words not in any name, and never matches events without a name', () => {
    expect(names('opera')).toEqual([]);
    expect(names('')).toEqual([]);
  });

  it('counts adjacent swaps as one typo', () => {
    expect(editDistance('festvial', 'festival', 2)).toBe(1);
    expect(editDistance('abc', 'xyz', 1)).toBe(2);
  });

  it('folds full-width and other compatibility forms, in the query and in the names alike', () => {
    expect(searchWords('ｃａｆｅ　ＭＵＬＬＥＲ')).toEqual(['cafe', 'muller']);
    expect(names('ｃａｆｅ')).toEqual(['Jazz Night at the Café Müller']);
    const wide = [event('ＪＡＺＺ ＮＩＧＨＴ'), event('Ｒｏｃｋ Ｆｅｓｔ')];
    expect(searchEvents(wide, 'jazz').map((match) => match.event.name)).toEqual(['ＪＡＺＺ ＮＩＧＨＴ']);
    expect(searchEvents(wide, 'ｆｅｓｔ').map((match) => match.event.name)).toEqual(['Ｒｏｃｋ Ｆｅｓｔ']);
  });
});

describe('the search text cap', () => {
  const events = [event('Jazz Night')];
  // Words that would match, padded with spaces to a given length.
  const padded = (chars: number) => `jazz${' '.repeat(chars - 4)}`;

  it(`searches text of up to ${MAX_SEARCH_TEXT} characters and matches nothing past it`, () => {
    expect(searchEvents(events, padded(MAX_SEARCH_TEXT))).toHaveLength(1);
    expect(searchEvents(events, padded(MAX_SEARCH_TEXT + 1))).toEqual([]);
  });

  it('says what the limit is and how much was typed', () => {
    expect(searchTextProblem(padded(MAX_SEARCH_TEXT))).toBeUndefined();
    expect(searchTextProblem(padded(250))).toBe(
      "Search words are limited to 200 characters (you typed 250): a few words of the event's name are enough.",
    );
  });
});
