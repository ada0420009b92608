import { describe, expect, it } from 'vitest';
import { editDistance, searchEvents, searchWords } from '../../src/catalog/event-search.js';
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
    expect(names('ja')).toEqual([]); // under three letters a word is not taken as a prefix
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
});
