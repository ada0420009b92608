import { describe, expect, it } from 'vitest';
import { didYouMean, typoDistance } from '../../src/catalog/did-you-mean.js';
import { closeEvents } from '../../src/catalog/event-search.js';
import { eventSchema, type TicketingEvent } from '../../src/ticketing/schemas.js';

const SUBCOMMANDS = ['list', 'upcoming', 'show', 'find', 'report', 'promo', 'digest', 'watch', 'unwatch', 'watches'];

describe('didYouMean', () => {
  it('finds a swapped, a missing, an extra and a wrong letter, in any case', () => {
    expect(didYouMean('shwo', SUBCOMMANDS)).toEqual(['show']);
    expect(didYouMean('reprt', SUBCOMMANDS)).toEqual(['report']);
    expect(didYouMean('PROMOO', SUBCOMMANDS)).toEqual(['promo']);
    expect(didYouMean('dugest', SUBCOMMANDS)).toEqual(['digest']);
    expect(didYouMean('EARLYBRD', ['EARLYBIRD', 'FRIENDS'])).toEqual(['EARLYBIRD']);
    expect(didYouMean('earlybrid', ['EARLYBIRD', 'FRIENDS'])).toEqual(['EARLYBIRD']);
  });

  it('gives every candidate equally close, nearest only, spelled as the candidates are', () => {
    expect(didYouMean('watchs', SUBCOMMANDS)).toEqual(['watch', 'watches']);
    // `fiend` is one edit from FRIEND and two from FRIENDS: only the nearest is offered.
    expect(didYouMean('fiend', ['FRIENDS', 'FRIEND'])).toEqual(['FRIEND']);
    expect(didYouMean('a', ['A', 'B'])).toEqual([]);
  });

  it('offers nothing for an exact match (any case) or for words too far, and tolerates more in longer words', () => {
    expect(didYouMean('SHOW', SUBCOMMANDS)).toEqual([]);
    expect(didYouMean('frobnicate', SUBCOMMANDS)).toEqual([]);
    expect(didYouMean('xyz', SUBCOMMANDS)).toEqual([]);
    // Short words: one edit from three letters, none below.
    expect(didYouMean('lst', SUBCOMMANDS)).toEqual(['list']);
    expect(didYouMean('sw', SUBCOMMANDS)).toEqual([]);
    // Two edits only from seven letters on.
    expect(didYouMean('shwoo', SUBCOMMANDS)).toEqual([]);
    expect(didYouMean('EARLBRD', ['EARLYBIRD'])).toEqual(['EARLYBIRD']);
    expect(didYouMean('ERLBRD', ['EARLYBIRD'])).toEqual([]);
  });

  it('keeps to `max`, once each whatever the case of the candidates', () => {
    expect(didYouMean('cat', ['bat', 'hat', 'mat', 'rat', 'BAT'], { max: 2 })).toEqual(['bat', 'hat']);
    expect(didYouMean('cat', ['bat', 'BAT'])).toEqual(['bat']);
  });

  it('measures a typo as Damerau does, case-insensitively, undefined past the threshold', () => {
    expect(typoDistance('shwo', 'SHOW')).toBe(1);
    expect(typoDistance('show', 'show')).toBe(0);
    expect(typoDistance('frobnicate', 'find')).toBeUndefined();
  });
});

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

describe('closeEvents: the names nearest words that matched no event', () => {
  const events = [
    event('Jazz Night at the Café Müller'),
    event('Rock & Roll Festival'),
    event('Festival of Lights', '2026-11-30T10:00:00Z'),
    event('Golden Tech Meetup', '2026-12-03T10:00:00Z'),
    event('Golden Tech Meetup', '2026-12-02T10:00:00Z'),
    event(undefined),
  ];
  const names = (query: string) => closeEvents(events, query).map((each) => each.name);

  it('offers the events most of whose words were typed, best first, then soonest', () => {
    // `berlin` is in no name, so the search finds nothing; the other two words are Jazz Night's.
    expect(names('jazz night berlin')).toEqual(['Jazz Night at the Café Müller']);
    // Three letters with a typo, which the search does not forgive: the name with both words wins.
    expect(names('rok festival')).toEqual(['Rock & Roll Festival']);
    // Equally close: soonest first.
    expect(names('festival opera')).toEqual(['Festival of Lights', 'Rock & Roll Festival']);
    expect(names('golden tek meetup berlin')).toEqual(['Golden Tech Meetup', 'Golden Tech Meetup']);
    expect(closeEvents(events, 'golden tek meetup berlin').map((each) => each.startsAtMs)).toEqual([
      Date.parse('2026-12-02T10:00:00Z'),
      Date.parse('2026-12-03T10:00:00Z'),
    ]);
  });

  it('reads words run together', () => {
    expect(names('jazznight')).toEqual(['Jazz Night at the Café Müller']);
  });

  it('offers nothing when too few of the words are near any name', () => {
    expect(names('opera gala')).toEqual([]);
    expect(names('opera gala jazz')).toEqual([]);
    expect(names('')).toEqual([]);
  });
});
