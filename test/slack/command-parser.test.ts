import { describe, expect, it } from 'vitest';
import { MAX_SEARCH_TEXT } from '../../src/catalog/event-search.js';
import { subscriptionSchema } from '../../src/digest/subscription.js';
import { USAGE } from '../../src/render/command-syntax.js';
import {
  commandFor,
  type FinishableCommand,
  parseEventsCommand,
} from '../../src/slack/listeners/commands/command-parser.js';

const EVENT = 'evt_3f2c1a9e-8b7d-4c6e-9f01-23456789abcd';
const PROMO = 'promo_9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d';

describe('parseEventsCommand', () => {
  it('lists by default and on list or upcoming, and shows help', () => {
    expect(parseEventsCommand('')).toEqual({ kind: 'list', filter: {} });
    expect(parseEventsCommand('  LIST ')).toEqual({ kind: 'list', filter: {} });
    expect(parseEventsCommand('upcoming')).toEqual({ kind: 'list', filter: {} });
    expect(parseEventsCommand('help')).toEqual({ kind: 'help' });
  });

  it('reads an event id with or without its prefix', () => {
    expect(parseEventsCommand(`show ${EVENT}`)).toEqual({ kind: 'show', target: { id: EVENT } });
    expect(parseEventsCommand(`report ${EVENT.slice(4)}`)).toEqual({ kind: 'report', target: { id: EVENT } });
  });

  it('reads a promo change with the one quantity rule', () => {
    expect(parseEventsCommand(`promo ${EVENT} ${PROMO} 250`)).toEqual({
      kind: 'promo',
      target: { id: EVENT },
      promo: { id: PROMO },
      quantity: 250,
    });
    // The event by name, of any number of words: the last two are the code and the quantity.
    expect(parseEventsCommand('promo summer tech meetup EARLYBIRD 100')).toEqual({
      kind: 'promo',
      target: { words: 'summer tech meetup' },
      promo: { code: 'EARLYBIRD' },
      quantity: 100,
    });
    expect(parseEventsCommand(`promo ${EVENT} ${PROMO} 0`)).toMatchObject({ quantity: 0 });
    expect(parseEventsCommand(`promo ${EVENT} ${PROMO} 1000000`)).toMatchObject({ quantity: 1_000_000 });
  });

  it.each([
    ['1,000', 'without separators'],
    ['1_000', 'without separators'],
    ['1.000', 'without separators'],
    ['2.5', 'not a fraction'],
    ['-5', 'cannot be negative'],
    ['1000001', 'too large'],
    ['lots', 'not a number'],
  ])('refuses the quantity %s, saying why', (quantity, why) => {
    const parsed = parseEventsCommand(`promo ${EVENT} ${PROMO} ${quantity}`);
    expect(parsed.kind).toBe('invalid');
    expect(parsed.kind === 'invalid' && parsed.problem).toContain(why);
  });

  it('names a wrong id, a missing id and an unknown subcommand, escaping what was typed', () => {
    expect(parseEventsCommand(`show ${PROMO}`)).toMatchObject({ kind: 'invalid' });
    expect(parseEventsCommand(`promo ${EVENT} ${EVENT} 5`)).toMatchObject({ kind: 'invalid' });
    expect(parseEventsCommand(`promo ${EVENT} <@U1> 5`)).toMatchObject({ kind: 'invalid' });
    // A word is a promo code, found later in the event's report.
    expect(parseEventsCommand(`promo ${EVENT} EARLYBIRD 5`)).toMatchObject({
      kind: 'promo',
      promo: { code: 'EARLYBIRD' },
    });
    const unknown = parseEventsCommand('<!channel> <@U1>');
    expect(unknown).toMatchObject({ kind: 'invalid', problem: 'Unknown subcommand "&lt;!channel&gt;".' });
  });
});

describe('parseEventsCommand: mcp', () => {
  it('reads mcp token and mcp revoke, and names anything else as the mistake it is', () => {
    expect(parseEventsCommand('mcp token')).toEqual({ kind: 'mcp-token' });
    expect(parseEventsCommand('MCP Revoke')).toEqual({ kind: 'mcp-revoke' });
    for (const text of ['mcp', 'mcp tokens', 'mcp token now']) {
      const parsed = parseEventsCommand(text);
      expect(parsed).toMatchObject({ kind: 'invalid', usage: USAGE.mcp });
    }
  });
});

describe('parseEventsCommand: names, filters and modals', () => {
  it('takes anything that is not one id as words of an event name', () => {
    expect(parseEventsCommand('show rock festival')).toEqual({ kind: 'show', target: { words: 'rock festival' } });
    expect(parseEventsCommand('report Jazz')).toEqual({ kind: 'report', target: { words: 'Jazz' } });
    expect(parseEventsCommand('find  jazz   night ')).toEqual({ kind: 'find', words: 'jazz night' });
  });

  it('reads list filters: a day range and words', () => {
    expect(parseEventsCommand('list today')).toEqual({ kind: 'list', filter: { range: 'today' } });
    expect(parseEventsCommand('list WEEK jazz')).toEqual({ kind: 'list', filter: { range: 'week', words: 'jazz' } });
    expect(parseEventsCommand('list jazz night')).toEqual({ kind: 'list', filter: { words: 'jazz night' } });
  });

  it('opens a modal for promo and report with nothing after them', () => {
    expect(parseEventsCommand('promo')).toEqual({ kind: 'promo-modal' });
    expect(parseEventsCommand('report')).toEqual({ kind: 'report-modal' });
  });
});

describe('parseEventsCommand: digest', () => {
  it('reads on, off, status and now; status by default', () => {
    expect(parseEventsCommand('digest')).toEqual({ kind: 'digest-status' });
    expect(parseEventsCommand('digest off')).toEqual({ kind: 'digest-off' });
    expect(parseEventsCommand('digest NOW')).toEqual({ kind: 'digest-now' });
    expect(parseEventsCommand('digest on')).toEqual({
      kind: 'digest-on',
      options: { time: undefined, timezone: undefined, days: 1, skipEmpty: false },
    });
  });

  it('reads a time, a zone, a window and --skip-empty in any order', () => {
    expect(parseEventsCommand('digest on Asia/Kathmandu --days 3 7:05 --skip-empty')).toEqual({
      kind: 'digest-on',
      options: { time: '07:05', timezone: 'Asia/Kathmandu', days: 3, skipEmpty: true },
    });
    expect(parseEventsCommand('digest on --days=14 18.30')).toMatchObject({ options: { time: '18:30', days: 14 } });
  });

  it('reads --match words and --weekdays', () => {
    expect(parseEventsCommand('digest on --match jazz night --weekdays mon-fri 08:00')).toEqual({
      kind: 'digest-on',
      options: {
        time: '08:00',
        timezone: undefined,
        days: 1,
        skipEmpty: false,
        match: 'jazz night',
        weekdays: [1, 2, 3, 4, 5],
      },
    });
    expect(parseEventsCommand('digest on --weekdays fri-mon')).toMatchObject({ options: { weekdays: [1, 5, 6, 7] } });
    expect(parseEventsCommand('digest on --weekdays weekends')).toMatchObject({ options: { weekdays: [6, 7] } });
  });

  it.each([
    ['digest on --weekdays someday', '--weekdays takes days'],
    ['digest on --match', '--match takes words'],
    ['digest on 25:00', 'is not a time of day'],
    ['digest on 9', 'is not a time of day'],
    ['digest on Mars/Olympus', 'is not a timezone I know'],
    ['digest on --days 15', '--days takes a whole number from 1 to 14'],
    ['digest on --days 0', '--days takes a whole number from 1 to 14'],
    ['digest on --days 2.5', '--days takes a whole number from 1 to 14'],
    ['digest on --days', '--days takes a whole number from 1 to 14'],
    ['digest off now', 'takes no more words'],
    ['digest sometimes', 'Unknown digest action'],
  ])('explains what is wrong with %j', (text, problem) => {
    const parsed = parseEventsCommand(text);
    expect(parsed.kind).toBe('invalid');
    expect(parsed.kind === 'invalid' && parsed.problem).toContain(problem);
  });
});

describe('parseEventsCommand: the sales digest', () => {
  it('reads --sales with a cadence, a time and a zone; daily by default, weekly on Monday', () => {
    expect(parseEventsCommand('digest on --sales weekly 08:00 UTC')).toEqual({
      kind: 'digest-on',
      sales: true,
      options: { time: '08:00', timezone: 'UTC', days: 1, skipEmpty: false, sales: { cadence: 'weekly' } },
    });
    expect(parseEventsCommand('digest on --sales')).toEqual({
      kind: 'digest-on',
      sales: true,
      options: { time: undefined, timezone: undefined, days: 1, skipEmpty: false, sales: { cadence: 'daily' } },
    });
    expect(parseEventsCommand('digest on Europe/Berlin DAILY --sales --me 7:05')).toEqual({
      kind: 'digest-on',
      sales: true,
      personal: true,
      options: { time: '07:05', timezone: 'Europe/Berlin', days: 1, skipEmpty: false, sales: { cadence: 'daily' } },
    });
  });

  it('takes one weekday for a weekly one, any for a daily one', () => {
    expect(parseEventsCommand('digest on --sales weekly --weekdays fri')).toMatchObject({
      options: { sales: { cadence: 'weekly' }, weekdays: [5] },
    });
    expect(parseEventsCommand('digest on --sales --weekdays mon-fri')).toMatchObject({
      options: { sales: { cadence: 'daily' }, weekdays: [1, 2, 3, 4, 5] },
    });
  });

  it('reads off, status and now with --sales (and --me)', () => {
    expect(parseEventsCommand('digest off --sales')).toEqual({ kind: 'digest-off', sales: true });
    expect(parseEventsCommand('digest status --sales --me')).toEqual({
      kind: 'digest-status',
      sales: true,
      personal: true,
    });
    expect(parseEventsCommand('digest --sales')).toEqual({ kind: 'digest-status', sales: true });
    expect(parseEventsCommand('digest now --sales')).toEqual({ kind: 'digest-now', sales: true });
  });

  it.each([
    ['digest on --sales --days 3', '--days is for the event digest'],
    ['digest on --sales --match jazz', '--match is for the event digest'],
    ['digest on --sales weekly --weekdays mon-fri', 'posts on one day'],
    ['digest on --sales daily weekly', 'daily or weekly, not both'],
    ['digest on weekly', 'add --sales'],
    ['digest now --sales weekly', 'takes no more words'],
    ['digest on --sales monthly', 'is not daily or weekly, nor a timezone'],
    ['digest on --sales wekly', 'Did you mean `weekly`?'],
  ])('explains what is wrong with %j', (text, problem) => {
    const parsed = parseEventsCommand(text);
    expect(parsed.kind).toBe('invalid');
    expect(parsed.kind === 'invalid' && parsed.problem).toContain(problem);
  });

  it('leaves the event digest as it was', () => {
    expect(parseEventsCommand('digest on 08:00')).not.toHaveProperty('sales');
    expect(parseEventsCommand('digest off')).toEqual({ kind: 'digest-off' });
  });
});

describe('parseEventsCommand: words of a name are capped', () => {
  // A name search of exactly the cap, and one character over it (words separated by spaces).
  const atCap = `jazz ${'x'.repeat(MAX_SEARCH_TEXT - 5)}`;
  const overCap = `${atCap}y`;

  it.each([
    ['find', USAGE.find],
    ['list', USAGE.list],
    ['list week', USAGE.list],
    ['show', USAGE.show],
    ['report', USAGE.report],
  ])('refuses %s words past the cap, saying the limit and the usage', (sub, usage) => {
    expect(parseEventsCommand(`${sub} ${overCap}`)).toEqual({
      kind: 'invalid',
      problem: `Search words are limited to ${MAX_SEARCH_TEXT} characters (you typed ${MAX_SEARCH_TEXT + 1}): a few words of the event's name are enough.`,
      usage,
    });
  });

  it('takes words up to the cap', () => {
    expect(parseEventsCommand(`find ${atCap}`)).toEqual({ kind: 'find', words: atCap });
    expect(parseEventsCommand(`list today ${atCap}`)).toEqual({
      kind: 'list',
      filter: { range: 'today', words: atCap },
    });
    expect(parseEventsCommand(`show ${atCap}`)).toEqual({ kind: 'show', target: { words: atCap } });
    expect(parseEventsCommand(`digest on --match ${atCap}`)).toMatchObject({ options: { match: atCap } });
  });

  it('takes only a --match the stored subscription can hold (an emoji counts twice in both)', () => {
    const emoji = '🎷'.repeat(MAX_SEARCH_TEXT / 2);
    expect(parseEventsCommand(`digest on --match ${emoji}`)).toMatchObject({ options: { match: emoji } });
    expect(subscriptionSchema.shape.match.safeParse(emoji).success).toBe(true);
    expect(parseEventsCommand(`digest on --match ${emoji}🎷`).kind).toBe('invalid');
  });

  it('refuses a digest --match past the same cap', () => {
    const parsed = parseEventsCommand(`digest on --match ${overCap} --days 2`);
    expect(parsed.kind === 'invalid' && parsed.problem).toContain(
      `--match: Search words are limited to ${MAX_SEARCH_TEXT} characters`,
    );
  });
});

describe('commandFor: what a choice between events carries on its buttons', () => {
  it('gives the command back for one event by its id, the rest of it as typed, when parsed again', () => {
    const typed = [
      'watch summer tech: sold >= 90%, EARLYBIRD left <= 5 --me',
      'watch summer tech when no sale for 6h',
      'watch summer tech',
      'unwatch summer tech --me',
      'unwatch summer tech',
      'report summer tech',
      'promo summer tech meetup EARLYBIRD 100',
      `promo summer tech ${PROMO} 0`,
    ];
    for (const text of typed) {
      const parsed = parseEventsCommand(text) as FinishableCommand;
      const again = parseEventsCommand(commandFor(parsed, EVENT));
      expect(again, text).toEqual({ ...parsed, target: { id: EVENT } });
    }
  });

  it('keeps a colon inside the conditions out of the event', () => {
    const parsed = parseEventsCommand('watch gala: no sale for 6h, sold >= 1') as FinishableCommand;
    expect(commandFor(parsed, EVENT)).toBe(`watch ${EVENT}: no sale for 6h, sold >= 1`);
  });
});

describe('quiet alerts in the /events grammar', () => {
  it('reads --except after the event and its conditions, and gives it back on a choice button', () => {
    const parsed = parseEventsCommand('watch gala: sold out --except pace,STAFF vip --me');
    expect(parsed).toMatchObject({
      kind: 'watch',
      conditions: 'sold out',
      personal: true,
      except: ['pace', 'STAFF', 'vip'],
    });
    expect(commandFor(parsed as FinishableCommand, EVENT)).toBe(
      `watch ${EVENT}: sold out --except pace STAFF vip --me`,
    );
    expect(parseEventsCommand(`watch ${EVENT} --except promo`)).toMatchObject({ except: ['promo'], conditions: '' });
  });

  it('refuses --except with no words, or with no event before it', () => {
    expect(parseEventsCommand('watch gala --except')).toMatchObject({ kind: 'invalid' });
    expect(parseEventsCommand('watch --except pace')).toMatchObject({ kind: 'invalid' });
  });

  it('reads `watches thread-only [on | off]` as a channel setting', () => {
    expect(parseEventsCommand('watches thread-only')).toEqual({ kind: 'watches-thread-only', on: true });
    expect(parseEventsCommand('watches Thread-Only OFF')).toEqual({ kind: 'watches-thread-only', on: false });
    for (const text of [
      'watches thread-only maybe',
      'watches thread-only on --me',
      'watches loud',
      'watches thread-only on now',
    ])
      expect(parseEventsCommand(text), text).toMatchObject({ kind: 'invalid' });
    expect(parseEventsCommand('watches --me')).toEqual({ kind: 'watches', personal: true });
  });
});
