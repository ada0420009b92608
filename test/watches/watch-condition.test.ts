import { describe, expect, it } from 'vitest';
import { USAGE } from '../../src/render/command-syntax.js';
import { HOSTILE_NAMES } from '../../src/simulator/seed.js';
import type { EventReport } from '../../src/ticketing/schemas.js';
import {
  cannotCheck,
  conditionsOffered,
  defaultConditions,
  describeCondition,
  exceptConditions,
  type Judgement,
  judge,
  MAX_CONDITIONS,
  parseConditions,
  type Reading,
  type WatchCondition,
} from '../../src/watches/watch-condition.js';
import { sampleReport } from '../helpers/sample-report.js';
import { shown } from '../helpers/shown.js';

const HOUR = 3_600_000;
const NOW = Date.parse('2026-12-01T09:00:00Z');

/** The sample report, with promo codes of its own. */
function report(fields: Record<string, unknown> = {}): EventReport {
  return sampleReport({
    promos: [
      { id: 'promo_early', code: 'EARLYBIRD', redeemed: 40, quantity: 100 },
      { id: 'promo_vip', code: 'VIPFRIENDS', redeemed: 3, quantity: 20 },
    ],
    ...fields,
  });
}

const reading = (fields: Record<string, unknown> = {}, extra: Partial<Reading> = {}): Reading => ({
  report: report(fields),
  previousSold: undefined,
  lastSaleAt: undefined,
  now: NOW,
  ...extra,
});

/** The judgement's figures; fails the test when the condition could not be judged. */
function known(judgement: Judgement): { value: number; met: boolean; cleared: boolean } {
  if ('unknown' in judgement) throw new Error(`unexpectedly unknown: ${judgement.unknown}`);
  return judgement;
}

const figure = (field: string, op: '>=' | '<=', value: number): WatchCondition => ({
  kind: 'figure',
  field,
  op,
  value,
});

/**
 * The caller's rule (WatchService): fire when armed and met, then stay quiet until the judgement
 * says cleared. Returns the indices of the readings that fired.
 */
function firings(condition: WatchCondition, readings: Reading[]): number[] {
  let armed = true;
  const fired: number[] = [];
  readings.forEach((r, index) => {
    const j = known(judge(condition, r));
    if (armed && j.met) {
      fired.push(index);
      armed = false;
    } else if (!armed && j.cleared) armed = true;
  });
  return fired;
}

describe('judge: each kind of condition, met and cleared', () => {
  it('a figure >= a threshold is met at the threshold and clears only a margin (2%, at least 1) below it', () => {
    const condition = figure('ticketsSold', '>=', 400);
    expect(known(judge(condition, reading({ ticketsSold: 399 })))).toEqual({ value: 399, met: false, cleared: false });
    expect(known(judge(condition, reading({ ticketsSold: 400 })))).toEqual({ value: 400, met: true, cleared: false });
    expect(known(judge(condition, reading({ ticketsSold: 392 }))).cleared).toBe(false);
    expect(known(judge(condition, reading({ ticketsSold: 391 })))).toEqual({ value: 391, met: false, cleared: true });
    // A small threshold still has a margin of one.
    const small = figure('checkIns', '>=', 3);
    expect(known(judge(small, reading({ checkIns: 2 }))).cleared).toBe(false);
    expect(known(judge(small, reading({ checkIns: 1 }))).cleared).toBe(true);
  });

  it('a figure <= a threshold is met at or below it and clears a margin above it', () => {
    const condition = figure('netRevenue', '<=', 1000);
    expect(known(judge(condition, reading({ netRevenue: 1000 }))).met).toBe(true);
    expect(known(judge(condition, reading({ netRevenue: 1001 })))).toEqual({ value: 1001, met: false, cleared: false });
    expect(known(judge(condition, reading({ netRevenue: 1020 }))).cleared).toBe(false);
    expect(known(judge(condition, reading({ netRevenue: 1021 }))).cleared).toBe(true);
  });

  it('reads the figure named in any case or spacing', () => {
    for (const field of ['ticketsSold', 'Tickets sold', 'TICKETS_SOLD', 'tickets sold']) {
      expect(known(judge(figure(field, '>=', 500), reading())).value).toBe(520);
    }
  });

  it('a share sold is met at the percent (rounded to 0.1) and clears 2 points below', () => {
    const condition: WatchCondition = { kind: 'sold-share', percent: 90 };
    expect(known(judge(condition, reading({ ticketsSold: 899 })))).toEqual({ value: 89.9, met: false, cleared: false });
    expect(known(judge(condition, reading({ ticketsSold: 900 })))).toEqual({ value: 90, met: true, cleared: false });
    expect(known(judge(condition, reading({ ticketsSold: 880 }))).cleared).toBe(false);
    expect(known(judge(condition, reading({ ticketsSold: 879 }))).cleared).toBe(true);
    // Oversold is still met.
    expect(known(judge(condition, reading({ ticketsSold: 1010 })))).toMatchObject({ value: 101, met: true });
  });

  it('a promo code with at most N left is met at N and clears 10% (at least 1) above it', () => {
    const condition: WatchCondition = { kind: 'left', code: 'EARLYBIRD', max: 10, unit: 'count' };
    const promos = (redeemed: number) => ({
      promos: [{ id: 'promo_early', code: 'EARLYBIRD', redeemed, quantity: 100 }],
    });
    expect(known(judge(condition, reading(promos(89))))).toEqual({ value: 11, met: false, cleared: false });
    expect(known(judge(condition, reading(promos(90))))).toEqual({ value: 10, met: true, cleared: false });
    expect(known(judge(condition, reading(promos(89)))).cleared).toBe(false);
    expect(known(judge(condition, reading(promos(88)))).cleared).toBe(true);
    // Redeemed past its quantity: none left, not a negative count.
    expect(known(judge(condition, reading(promos(130))))).toMatchObject({ value: 0, met: true });
  });

  it('a promo code with at most N% left is met at the share and clears 2 points above it', () => {
    const condition: WatchCondition = { kind: 'left', code: 'VIPFRIENDS', max: 10, unit: 'percent' };
    const promos = (redeemed: number) => ({
      promos: [{ id: 'promo_vip', code: 'VIPFRIENDS', redeemed, quantity: 200 }],
    });
    expect(known(judge(condition, reading(promos(179))))).toEqual({ value: 10.5, met: false, cleared: false });
    expect(known(judge(condition, reading(promos(180))))).toEqual({ value: 10, met: true, cleared: false });
    expect(known(judge(condition, reading(promos(176)))).cleared).toBe(false);
    expect(known(judge(condition, reading(promos(175)))).cleared).toBe(true);
  });

  it('sold since the last check: the first check is a baseline, a jump of N is met, less clears', () => {
    const condition: WatchCondition = { kind: 'sold-since', count: 50 };
    expect(known(judge(condition, reading({ ticketsSold: 900 })))).toEqual({ value: 0, met: false, cleared: true });
    expect(known(judge(condition, reading({ ticketsSold: 570 }, { previousSold: 520 })))).toEqual({
      value: 50,
      met: true,
      cleared: false,
    });
    expect(known(judge(condition, reading({ ticketsSold: 569 }, { previousSold: 520 })))).toEqual({
      value: 49,
      met: false,
      cleared: true,
    });
    // Refunds (sold going down) are no jump.
    expect(known(judge(condition, reading({ ticketsSold: 500 }, { previousSold: 520 }))).met).toBe(false);
  });

  it('no sale for H hours: nothing before a sale was seen, met from H hours on, cleared when a sale comes', () => {
    const condition: WatchCondition = { kind: 'stall', hours: 6 };
    expect(known(judge(condition, reading()))).toEqual({ value: 0, met: false, cleared: true });
    expect(known(judge(condition, reading({}, { lastSaleAt: NOW - 6 * HOUR + 1 })))).toEqual({
      value: 6,
      met: false,
      cleared: true,
    });
    expect(known(judge(condition, reading({}, { lastSaleAt: NOW - 6 * HOUR })))).toEqual({
      value: 6,
      met: true,
      cleared: false,
    });
    expect(known(judge(condition, reading({}, { lastSaleAt: NOW - 7.25 * HOUR }))).value).toBe(7.3);
    expect(known(judge(condition, reading({}, { lastSaleAt: NOW })))).toMatchObject({ met: false, cleared: true });
  });

  it('sold out: met with none left (or oversold), cleared only with 1% of capacity left again', () => {
    const condition: WatchCondition = { kind: 'sold-out' };
    expect(known(judge(condition, reading({ ticketsSold: 999 })))).toEqual({ value: 1, met: false, cleared: false });
    expect(known(judge(condition, reading({ ticketsSold: 1000 })))).toEqual({ value: 0, met: true, cleared: false });
    expect(known(judge(condition, reading({ ticketsSold: 1003 })))).toEqual({ value: 0, met: true, cleared: false });
    expect(known(judge(condition, reading({ ticketsSold: 991 }))).cleared).toBe(false);
    expect(known(judge(condition, reading({ ticketsSold: 990 }))).cleared).toBe(true);
    // A tiny capacity: one seat back clears it.
    expect(known(judge(condition, reading({ ticketsSold: 9, capacity: 10 }))).cleared).toBe(true);
  });
});

describe('judge: hysteresis, a figure wobbling around its threshold', () => {
  it('is met, then not cleared, then met again: the caller fires once until it clearly clears', () => {
    const condition = figure('ticketsSold', '>=', 400);
    const at = (sold: number) => known(judge(condition, reading({ ticketsSold: sold })));
    expect(at(400).met).toBe(true);
    expect(at(398)).toMatchObject({ met: false, cleared: false });
    expect(at(401).met).toBe(true);
    const wobble = [399, 400, 398, 401, 396, 400, 402, 391, 399, 400];
    expect(
      firings(
        condition,
        wobble.map((sold) => reading({ ticketsSold: sold })),
      ),
    ).toEqual([1, 9]);
  });

  it('holds for every threshold kind', () => {
    const sold = (n: number, extra: Partial<Reading> = {}) => reading({ ticketsSold: n }, extra);
    const redeemed = (n: number) => reading({ promos: [{ code: 'EARLYBIRD', redeemed: n, quantity: 100 }] });
    expect(
      firings(
        { kind: 'sold-share', percent: 90 },
        [899, 900, 895, 901, 890, 905, 879, 900].map((n) => sold(n)),
      ),
    ).toEqual([1, 7]);
    expect(
      firings(
        { kind: 'sold-out' },
        [998, 1000, 999, 1000, 995, 1000, 990, 1000].map((n) => sold(n)),
      ),
    ).toEqual([1, 7]);
    expect(
      firings(
        { kind: 'left', code: 'EARLYBIRD', max: 10, unit: 'count' },
        [85, 90, 89, 91, 89, 88, 90].map((n) => redeemed(n)),
      ),
    ).toEqual([1, 6]);
    expect(
      firings(
        { kind: 'left', code: 'earlybird', max: 10, unit: 'percent' },
        [89, 90, 89, 91, 87, 90].map((n) => redeemed(n)),
      ),
    ).toEqual([1, 5]);
    expect(
      firings(
        { kind: 'stall', hours: 6 },
        [1, 6, 7, 8, 0, 6].map((h) => reading({}, { lastSaleAt: NOW - h * HOUR })),
      ),
    ).toEqual([1, 5]);
    expect(
      firings(
        { kind: 'sold-since', count: 50 },
        [60, 55, 10, 50].map((jump) => sold(520 + jump, { previousSold: 520 })),
      ),
    ).toEqual([0, 3]);
  });
});

describe('judge: a report that lacks what a condition reads', () => {
  const bare: EventReport = { eventId: 'evt_1', eventName: 'Jazz Night', generatedAt: '2026-12-01T08:55:00.000Z' };
  const cases: [WatchCondition, RegExp][] = [
    [figure('checkIns', '>=', 100), /no checkIns/],
    [{ kind: 'sold-share', percent: 90 }, /tickets sold of a capacity/],
    [{ kind: 'left', code: 'EARLYBIRD', max: 10, unit: 'count' }, /promo code EARLYBIRD/],
    [{ kind: 'left', code: 'EARLYBIRD', max: 10, unit: 'percent' }, /promo code EARLYBIRD/],
    [{ kind: 'sold-since', count: 50 }, /tickets sold/],
    [{ kind: 'stall', hours: 6 }, /tickets sold/],
    [{ kind: 'sold-out' }, /tickets sold of a capacity/],
  ];

  it.each(cases)('%o is unknown, with a reason naming what is missing', (condition, reason) => {
    const judgement = judge(condition, { report: bare, previousSold: 10, lastSaleAt: NOW - HOUR, now: NOW });
    expect(judgement).toEqual({ unknown: expect.stringMatching(reason) });
    expect(cannotCheck(condition, bare)).toMatch(reason);
    expect(cannotCheck(condition, report())).toBeUndefined();
  });

  it('a promo code with no quantity cannot be judged as a share, and says which code', () => {
    const zero = report({ promos: [{ code: 'FREE', redeemed: 0, quantity: 0 }] });
    expect(cannotCheck({ kind: 'left', code: 'FREE', max: 10, unit: 'percent' }, zero)).toBe(
      'promo code FREE has no quantity',
    );
    // As a count it is simply none left.
    expect(known(judge({ kind: 'left', code: 'FREE', max: 0, unit: 'count' }, { ...reading(), report: zero }))).toEqual(
      {
        value: 0,
        met: true,
        cleared: false,
      },
    );
  });

  // Regression: movement was read through sold-of-capacity, so a report without a capacity could
  // not be checked for it (and the reason given was false). Neither condition needs a capacity.
  it('judges "+N sold" and "no sale for H" on a report that has tickets sold but no capacity', () => {
    const noCapacity: EventReport = { ticketsSold: 570 };
    expect(judge({ kind: 'sold-since', count: 50 }, { ...reading(), report: noCapacity, previousSold: 520 })).toEqual({
      value: 50,
      met: true,
      cleared: false,
    });
    expect(cannotCheck({ kind: 'stall', hours: 6 }, noCapacity)).toBeUndefined();
  });
});

describe('describeCondition', () => {
  it('gives the canonical text of each kind', () => {
    expect(describeCondition(figure('checkIns', '>=', 100))).toBe('checkIns >= 100');
    expect(describeCondition(figure('netRevenue', '<=', 12.5))).toBe('netRevenue <= 12.5');
    expect(describeCondition({ kind: 'sold-share', percent: 90 })).toBe('sold >= 90%');
    expect(describeCondition({ kind: 'left', code: 'EARLYBIRD', max: 10, unit: 'count' })).toBe('EARLYBIRD left <= 10');
    expect(describeCondition({ kind: 'left', code: 'EARLYBIRD', max: 5, unit: 'percent' })).toBe(
      'EARLYBIRD left <= 5%',
    );
    expect(describeCondition({ kind: 'sold-since', count: 50 })).toBe('+50 sold since the last check');
    expect(describeCondition({ kind: 'stall', hours: 6 })).toBe('no sale for 6h');
    expect(describeCondition({ kind: 'sold-out' })).toBe('sold out');
  });

  it('reads back through parseConditions as the same condition', () => {
    const all: WatchCondition[] = [
      figure('checkIns', '>=', 100),
      figure('netRevenue', '<=', 12.5),
      { kind: 'sold-share', percent: 92.5 },
      { kind: 'left', code: 'EARLYBIRD', max: 10, unit: 'count' },
      { kind: 'left', code: 'EARLYBIRD', max: 5, unit: 'percent' },
      { kind: 'sold-since', count: 50 },
      { kind: 'stall', hours: 1.5 },
      { kind: 'sold-out' },
    ];
    for (const condition of all) {
      expect(parseConditions(describeCondition(condition))).toEqual({ conditions: [condition] });
      expect(parseConditions(describeCondition(condition), report())).toEqual({ conditions: [condition] });
    }
  });
});

describe('parseConditions: what it accepts', () => {
  it('accepts every example the /events watch usage line gives', () => {
    const unescaped = USAGE.watch.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
    const parts =
      /conditions such as: (.*); and, judged from when the event's sales history allows: (.*); against similar finished events: (.*)\)$/.exec(
        unescaped,
      );
    const examples = parts?.[1];
    expect(examples).toBe('sold >= 90%, EARLYBIRD left <= 10, +50 sold, no sale for 6h, sold out, checkIns >= 100');
    expect(parseConditions(parts?.[2] as string)).toEqual({
      conditions: [{ kind: 'sells-out' }, { kind: 'pace-below', perDay: 20 }, { kind: 'pace-halves' }],
    });
    expect(parseConditions(parts?.[3] as string)).toEqual({
      conditions: [{ kind: 'behind-similar' }, { kind: 'flatline' }],
    });
    const expected: WatchCondition[] = [
      { kind: 'sold-share', percent: 90 },
      { kind: 'left', code: 'EARLYBIRD', max: 10, unit: 'count' },
      { kind: 'sold-since', count: 50 },
      { kind: 'stall', hours: 6 },
      { kind: 'sold-out' },
      figure('checkIns', '>=', 100),
    ];
    expect(parseConditions(examples as string)).toEqual({ conditions: expected });
    expect(parseConditions(examples as string, report())).toEqual({ conditions: expected });
  });

  const spellings: [string, WatchCondition][] = [
    // A share sold.
    ['sold >= 90%', { kind: 'sold-share', percent: 90 }],
    ['sold>=90%', { kind: 'sold-share', percent: 90 }],
    ['SOLD >= 90 %', { kind: 'sold-share', percent: 90 }],
    ['>= 90% sold', { kind: 'sold-share', percent: 90 }],
    ['90% sold', { kind: 'sold-share', percent: 90 }],
    ['sold >= 92.5%', { kind: 'sold-share', percent: 92.5 }],
    ['sold >= 100%', { kind: 'sold-share', percent: 100 }],
    // Sold out.
    ['sold out', { kind: 'sold-out' }],
    ['Sold Out', { kind: 'sold-out' }],
    ['sold-out', { kind: 'sold-out' }],
    ['soldout', { kind: 'sold-out' }],
    // A promo code running low.
    ['EARLYBIRD left <= 10', { kind: 'left', code: 'EARLYBIRD', max: 10, unit: 'count' }],
    ['EARLYBIRD left<=10', { kind: 'left', code: 'EARLYBIRD', max: 10, unit: 'count' }],
    ['EARLYBIRD left <= 10%', { kind: 'left', code: 'EARLYBIRD', max: 10, unit: 'percent' }],
    ['EARLYBIRD <= 10 left', { kind: 'left', code: 'EARLYBIRD', max: 10, unit: 'count' }],
    ['EARLYBIRD <= 10% left', { kind: 'left', code: 'EARLYBIRD', max: 10, unit: 'percent' }],
    ['EARLYBIRD LEFT <= 0', { kind: 'left', code: 'EARLYBIRD', max: 0, unit: 'count' }],
    ['EARLYBIRD left <= 100%', { kind: 'left', code: 'EARLYBIRD', max: 100, unit: 'percent' }],
    // Sales jumping.
    ['+50 sold', { kind: 'sold-since', count: 50 }],
    ['+50', { kind: 'sold-since', count: 50 }],
    ['+ 50 sold', { kind: 'sold-since', count: 50 }],
    ['+50 sold since last check', { kind: 'sold-since', count: 50 }],
    ['+50 sold since the last check', { kind: 'sold-since', count: 50 }],
    ['+50 since the last check', { kind: 'sold-since', count: 50 }],
    // Sales stalling.
    ['no sale for 6h', { kind: 'stall', hours: 6 }],
    ['no sales for 6 hours', { kind: 'stall', hours: 6 }],
    ['No Sale For 1 hour', { kind: 'stall', hours: 1 }],
    ['no sale for 1.5h', { kind: 'stall', hours: 1.5 }],
    ['no sale for 720h', { kind: 'stall', hours: 720 }],
    ['stall 6h', { kind: 'stall', hours: 6 }],
    ['stalled for 12 hours', { kind: 'stall', hours: 12 }],
    // A top-level figure, as typed (the issue's spellings among them).
    ['checkIns >= 100', figure('checkIns', '>=', 100)],
    ['Tickets sold >= 400', figure('Tickets sold', '>=', 400)],
    ['Check ins >= 100', figure('Check ins', '>=', 100)],
    ['refunds<=3', figure('refunds', '<=', 3)],
    ['net_revenue <= 1000.25', figure('net_revenue', '<=', 1000.25)],
  ];

  it.each(spellings)('reads %j', (text, condition) => {
    expect(parseConditions(text)).toEqual({ conditions: [condition] });
  });

  it('splits on commas and semicolons, squeezes spaces and skips empty clauses', () => {
    expect(parseConditions('  sold   out ;; +10 sold ,, ,  no  sale  for  2h  ')).toEqual({
      conditions: [{ kind: 'sold-out' }, { kind: 'sold-since', count: 10 }, { kind: 'stall', hours: 2 }],
    });
    expect(parseConditions('')).toEqual({ conditions: [] });
    expect(parseConditions(' , ; ')).toEqual({ conditions: [] });
  });

  it('keeps one of conditions that read the same', () => {
    expect(parseConditions('sold out, sold-out, SOLD OUT, 90% sold, sold >= 90%')).toEqual({
      conditions: [{ kind: 'sold-out' }, { kind: 'sold-share', percent: 90 }],
    });
  });

  it(`takes up to ${MAX_CONDITIONS} conditions`, () => {
    const ten = Array.from({ length: MAX_CONDITIONS }, (_, i) => `+${i + 1} sold`).join(', ');
    const parsed = parseConditions(ten);
    expect('conditions' in parsed && parsed.conditions).toHaveLength(MAX_CONDITIONS);
  });
});

describe('parseConditions: what it refuses, and how it says so', () => {
  const refusals: [string, string][] = [
    ['sold a lot', '"sold a lot" is not a condition I know.'],
    ['sold > 90%', '"sold > 90%" is not a condition I know.'],
    ['ticketsSold = 400', '"ticketsSold = 400" is not a condition I know.'],
    ['sold >= 0%', '"sold >= 0%": a share sold is from 1% to 100%.'],
    ['sold >= 101%', '"sold >= 101%": a share sold is from 1% to 100%.'],
    ['90.5% sold, sold >= 100.01%', '"sold >= 100.01%": a share sold is from 1% to 100%.'],
    ['EARLYBIRD left <= 101%', '"EARLYBIRD left <= 101%": a share left is at most 100%.'],
    ['+0 sold', '"+0 sold": a jump in sales is at least +1 sold.'],
    ['-5 sold', '"-5 sold" is not a condition I know.'],
    ['no sale for 0.5h', '"no sale for 0.5h": a stall lasts from 1 to 720 hours.'],
    ['no sale for 721h', '"no sale for 721h": a stall lasts from 1 to 720 hours.'],
    ['ticketsSold >= 1,000', '"000" is not a condition I know.'],
    ['ticketsSold >= 1234567890', '"ticketsSold >= 1234567890" is not a condition I know.'],
  ];

  it.each(refusals)('refuses %j', (text, problem) => {
    expect(parseConditions(text)).toEqual({ problem });
  });

  it(`refuses more than ${MAX_CONDITIONS} conditions, even repeated ones`, () => {
    const eleven = Array.from({ length: MAX_CONDITIONS + 1 }, () => 'sold out').join(', ');
    expect(parseConditions(eleven)).toEqual({ problem: `A watch takes at most ${MAX_CONDITIONS} conditions.` });
  });

  it('quotes at most 60 characters of a clause it refuses', () => {
    const long = `sold ${'x'.repeat(200)}`;
    const parsed = parseConditions(long);
    expect(parsed).toEqual({ problem: `"${long.slice(0, 60)}" is not a condition I know.` });
  });

  // Regression: the issue's own spellings were refused by the parser.
  it("accepts the issue's own spellings of a promo running low and a jump in sales", () => {
    expect(parseConditions('promo EARLYBIRD has <= 10 left')).toEqual({
      conditions: [{ kind: 'left', code: 'EARLYBIRD', max: 10, unit: 'count' }],
    });
    expect(parseConditions('at least 50 sold since the last check')).toEqual({
      conditions: [{ kind: 'sold-since', count: 50 }],
    });
  });
});

describe('parseConditions against the latest report', () => {
  it('matches figure names in any case or spacing and keeps the report’s spelling', () => {
    expect(
      parseConditions('Tickets sold >= 400, CHECK_INS >= 100, check ins <= 5, GrossRevenue >= 1', report()),
    ).toEqual({
      conditions: [
        figure('ticketsSold', '>=', 400),
        figure('checkIns', '>=', 100),
        figure('checkIns', '<=', 5),
        figure('grossRevenue', '>=', 1),
      ],
    });
  });

  it('keeps one of two spellings of the same figure condition once both are canonical', () => {
    expect(parseConditions('ticketsSold >= 400, tickets sold >= 400', report())).toEqual({
      conditions: [figure('ticketsSold', '>=', 400)],
    });
  });

  it('matches promo codes by code in any case, or by id, and keeps the code', () => {
    expect(parseConditions('earlybird left <= 10, promo_vip <= 5% left', report())).toEqual({
      conditions: [
        { kind: 'left', code: 'EARLYBIRD', max: 10, unit: 'count' },
        { kind: 'left', code: 'VIPFRIENDS', max: 5, unit: 'percent' },
      ],
    });
    // A code without an id field, and a row labelled by name when it has no code.
    const named = report({ promos: [{ name: 'Friends', redeemed: 1, quantity: 5 }] });
    expect(parseConditions('FRIENDS left <= 1', named)).toEqual({
      conditions: [{ kind: 'left', code: 'Friends', max: 1, unit: 'count' }],
    });
  });

  it('refuses what the report cannot answer, naming what it lacks', () => {
    expect(parseConditions('attendance >= 10', report())).toEqual({
      problem: '"attendance >= 10" cannot be checked: the report has no attendance.',
    });
    expect(parseConditions('sold out, SUMMER left <= 5', report())).toEqual({
      problem:
        '"SUMMER left <= 5" cannot be checked: the report names no promo code SUMMER (it names EARLYBIRD, VIPFRIENDS).',
    });
    const noCapacity = report({ capacity: undefined });
    expect(parseConditions('sold >= 90%', noCapacity)).toEqual({
      problem: '"sold >= 90%" cannot be checked: the report has no tickets sold of a capacity.',
    });
    // A figure that is text, not a number, is not a figure.
    expect(parseConditions('currency >= 1', report())).toEqual({
      problem: '"currency >= 1" cannot be checked: the report has no currency.',
    });
  });

  it('without a report, accepts what it can read and keeps names as typed', () => {
    expect(parseConditions('attendance >= 10, summer left <= 5')).toEqual({
      conditions: [figure('attendance', '>=', 10), { kind: 'left', code: 'summer', max: 5, unit: 'count' }],
    });
  });
});

describe('parseConditions: hostile text', () => {
  const noisy = [
    ...HOSTILE_NAMES,
    '<!channel> >= 5',
    '<!channel> left <= 5',
    '<@U0123456> <= 3 left',
    'sold >= 90% <!here>',
    '<https://evil.example|click> >= 1',
    '`code` left <= 1',
    'sold out\n<!channel>',
    '\u0000\u202e sold out',
  ];

  it.each(noisy)('never crashes on %j: refused, or kept as plain data', (text) => {
    for (const withReport of [undefined, report()]) {
      const parsed = parseConditions(text, withReport);
      if ('problem' in parsed) {
        expect(parsed.problem.length).toBeLessThan(200);
        continue;
      }
      for (const condition of parsed.conditions) {
        // Whatever it kept is the person's text as a plain string, nothing resolved or expanded.
        const named = condition.kind === 'left' ? condition.code : condition.kind === 'figure' ? condition.field : '';
        expect(text.replace(/\s+/g, ' ')).toContain(named);
      }
    }
  });

  it('keeps a code made of markup as plain data without a report, and refuses it with one', () => {
    expect(parseConditions('<!channel> left <= 5')).toEqual({
      conditions: [{ kind: 'left', code: '<!channel>', max: 5, unit: 'count' }],
    });
    expect(parseConditions('<!channel> left <= 5', report())).toEqual({
      problem:
        '"<!channel> left <= 5" cannot be checked: the report names no promo code <!channel> (it names EARLYBIRD, VIPFRIENDS).',
    });
    expect(parseConditions('<!channel> >= 5')).toEqual({ problem: '"<!channel> >= 5" is not a condition I know.' });
  });

  it('matches a promo code that is itself markup, as the literal text it is', () => {
    const hostile = report({ promos: [{ code: '<!channel>', redeemed: 9, quantity: 10 }] });
    expect(parseConditions('<!CHANNEL> left <= 5', hostile)).toEqual({
      conditions: [{ kind: 'left', code: '<!channel>', max: 5, unit: 'count' }],
    });
  });

  it('answers fast on very long and backtracking-prone text', () => {
    const texts = [
      'a '.repeat(50_000),
      `${'a'.repeat(63)} `.repeat(1_000),
      `${'+'.repeat(10_000)}1`,
      `sold ${' '.repeat(10_000)}>= 9%x`,
      `${'x,'.repeat(5_000)}`,
    ];
    const started = performance.now();
    for (const text of texts) expect(() => parseConditions(text, report())).not.toThrow();
    expect(performance.now() - started).toBeLessThan(500);
  });
});

describe('defaultConditions and conditionsOffered', () => {
  it('with no report at hand, watches for 90% sold and sold out', () => {
    expect(defaultConditions(undefined)).toEqual([{ kind: 'sold-share', percent: 90 }, { kind: 'sold-out' }]);
  });

  it('adds 10% left for each promo code (at most 5) the report names', () => {
    const many = report({
      promos: Array.from({ length: 7 }, (_, i) => ({ id: `promo_${i}`, code: `CODE${i}`, redeemed: 0, quantity: 10 })),
    });
    expect(defaultConditions(many)).toEqual([
      { kind: 'sold-share', percent: 90 },
      { kind: 'sold-out' },
      ...[0, 1, 2, 3, 4].map((i) => ({ kind: 'left', code: `CODE${i}`, max: 10, unit: 'percent' })),
    ]);
  });

  it('leaves out sold conditions a report without sold of capacity cannot check', () => {
    const promosOnly: EventReport = { promos: [{ code: 'EARLYBIRD', redeemed: 1, quantity: 10 }] };
    expect(defaultConditions(promosOnly)).toEqual([{ kind: 'left', code: 'EARLYBIRD', max: 10, unit: 'percent' }]);
    expect(defaultConditions({})).toEqual([]);
  });

  it('offers what the report holds, each one checkable and readable back by the parser', () => {
    const offered = conditionsOffered(shown(report()));
    expect(offered).toEqual([
      { kind: 'sold-share', percent: 90 },
      { kind: 'sold-out' },
      { kind: 'sold-since', count: 50 },
      { kind: 'stall', hours: 24 },
      { kind: 'left', code: 'EARLYBIRD', max: 10, unit: 'percent' },
      { kind: 'left', code: 'VIPFRIENDS', max: 10, unit: 'percent' },
      figure('grossRevenue', '>=', 31_200),
      figure('netRevenue', '>=', 29_328),
      figure('checkIns', '>=', 1),
      figure('refunds', '>=', 12),
    ]);
    for (const condition of offered) {
      expect(cannotCheck(condition, report())).toBeUndefined();
      expect(parseConditions(describeCondition(condition), report())).toEqual({ conditions: [condition] });
    }
  });

  it('offers a jump of at least 10 sold on a small capacity', () => {
    expect(conditionsOffered(shown(report({ ticketsSold: 5, capacity: 40 })))).toContainEqual({
      kind: 'sold-since',
      count: 10,
    });
  });

  it('offers nothing about sales when the report has no sold of capacity', () => {
    const offered = conditionsOffered(shown({ checkIns: 5 }));
    expect(offered).toEqual([figure('checkIns', '>=', 6)]);
  });
});

describe('no crash on any report shape', () => {
  const shapes: [string, EventReport][] = [
    ['empty', {}],
    ['strings where numbers are', { ticketsSold: '400', capacity: '1000', checkIns: '5' }],
    ['negative capacity', { ticketsSold: 10, capacity: -5 }],
    ['zero capacity', { ticketsSold: 10, capacity: 0 }],
    ['negative sold', { ticketsSold: -10, capacity: 100 }],
    ['non-finite numbers', { ticketsSold: Number.NaN, capacity: Number.POSITIVE_INFINITY, checkIns: -Infinity }],
    ['empty lists', { ticketsSold: 10, capacity: 100, promos: [], byCategory: [] }],
    ['lists of non-records', { promos: [null, 1, 'x', ['nested']], byCategory: 'none' }],
    ['promo rows with strings', { promos: [{ code: 'EARLYBIRD', redeemed: '1', quantity: '10' }] }],
    ['promo rows without a label', { promos: [{ redeemed: 1, quantity: 10 }] }],
    ['promo rows with an empty code', { promos: [{ code: '', redeemed: 1, quantity: 10 }] }],
    ['promo rows with a negative quantity', { promos: [{ code: 'EARLYBIRD', redeemed: 1, quantity: -10 }] }],
    ['null and nested values', { ticketsSold: null, capacity: { value: 10 }, promos: { code: 'X' } }],
    ['a huge report', Object.fromEntries(Array.from({ length: 2_000 }, (_, i) => [`figure${i}`, i]))],
    ['hostile keys', Object.fromEntries(HOSTILE_NAMES.map((name, i) => [name, i]))],
  ];
  const everyKind: WatchCondition[] = [
    figure('ticketsSold', '>=', 1),
    figure('checkIns', '<=', 1),
    { kind: 'sold-share', percent: 50 },
    { kind: 'left', code: 'EARLYBIRD', max: 1, unit: 'count' },
    { kind: 'left', code: 'EARLYBIRD', max: 1, unit: 'percent' },
    { kind: 'sold-since', count: 1 },
    { kind: 'stall', hours: 1 },
    { kind: 'sold-out' },
  ];

  it.each(shapes)('%s: judged as unknown or as finite figures, never thrown', (_name, shape) => {
    for (const condition of everyKind) {
      const judgement = judge(condition, { report: shape, previousSold: 5, lastSaleAt: NOW - 2 * HOUR, now: NOW });
      if ('unknown' in judgement) expect(judgement.unknown).toMatch(/\S/);
      else expect(Number.isFinite(judgement.value)).toBe(true);
      expect(() => cannotCheck(condition, shape)).not.toThrow();
    }
    expect(() => defaultConditions(shape)).not.toThrow();
    expect(() => conditionsOffered(shown(shape))).not.toThrow();
    expect(() =>
      parseConditions('sold >= 90%, EARLYBIRD left <= 10, +50 sold, no sale for 6h, sold out, checkIns >= 100', shape),
    ).not.toThrow();
  });

  it.each(shapes.filter(([name]) => !name.includes('negative quantity')))(
    '%s: offers and defaults to only conditions it can check',
    (_name, shape) => {
      for (const condition of conditionsOffered(shown(shape))) expect(cannotCheck(condition, shape)).toBeUndefined();
      for (const condition of defaultConditions(shape)) expect(cannotCheck(condition, shape)).toBeUndefined();
    },
  );

  // Regression: a promo row without a quantity was offered (and made a default) as a share left
  // the same report cannot check.
  it('offers no share-left condition on a promo code without a quantity', () => {
    for (const quantity of [0, -10]) {
      const shape: EventReport = { ticketsSold: 1, capacity: 10, promos: [{ code: 'FREE', redeemed: 0, quantity }] };
      for (const condition of [...conditionsOffered(shown(shape)), ...defaultConditions(shape)])
        expect(cannotCheck(condition, shape)).toBeUndefined();
    }
  });

  it('treats a negative or zero capacity as no capacity', () => {
    for (const capacity of [-5, 0]) {
      expect(cannotCheck({ kind: 'sold-out' }, { ticketsSold: 10, capacity })).toMatch(/capacity/);
    }
  });

  // Regression: sold was read only from names without "un" or "out", which missed soldCount and
  // amountSold.
  it('reads sold from a field named soldCount or amountSold', () => {
    for (const field of ['soldCount', 'amountSold', 'ticketsSoldCount']) {
      expect(
        known(judge({ kind: 'sold-share', percent: 90 }, { ...reading(), report: { [field]: 950, capacity: 1000 } })),
      ).toMatchObject({ value: 95, met: true });
    }
  });
});

describe('--except', () => {
  const conditions: WatchCondition[] = [
    { kind: 'sold-share', percent: 90 },
    { kind: 'sold-out' },
    { kind: 'left', code: 'STAFF50', max: 10, unit: 'percent' },
    { kind: 'left', code: 'EARLYBIRD', max: 10, unit: 'percent' },
    { kind: 'figure', field: 'checkIns', op: '>=', value: 100 },
    { kind: 'pace-below', perDay: 5 },
  ];
  const kept = (words: string[]) => exceptConditions(conditions, words).kept.map(describeCondition);

  it('leaves out a kind of condition by its word', () => {
    expect(kept(['promo'])).toEqual(['sold >= 90%', 'sold out', 'checkIns >= 100', 'pace < 5/day']);
    expect(kept(['pace', 'sold'])).toEqual(['STAFF50 left <= 10%', 'EARLYBIRD left <= 10%', 'checkIns >= 100']);
  });

  it('leaves out promo codes and figures whose names hold a word, in any case, and says what it left out', () => {
    expect(kept(['staff', 'CHECK'])).toEqual(['sold >= 90%', 'sold out', 'EARLYBIRD left <= 10%', 'pace < 5/day']);
    expect(exceptConditions(conditions, ['staff']).excepted).toEqual(['STAFF50 left <= 10%']);
    expect(kept(['nothing-like-it'])).toHaveLength(conditions.length);
  });
});
