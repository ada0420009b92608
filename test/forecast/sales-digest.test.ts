import { describe, expect, it } from 'vitest';
import { firstSince, salesDigestEntries } from '../../src/forecast/sales-digest.js';
import type { SalesPoint } from '../../src/history/sales-point.js';
import { salesDigestMessage } from '../../src/render/sales-digest-blocks.js';
import { strayMarkup } from '../helpers/stray-markup.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.parse('2026-12-01T09:00:00Z');

/** Steady sales of `perDay` a day over the last `days` days. */
const steady = (perDay: number, days: number, from = 0): SalesPoint[] =>
  Array.from({ length: days * 4 + 1 }, (_, i) => ({
    at: NOW - days * DAY + i * 6 * HOUR,
    sold: from + (perDay * i) / 4,
  }));

describe('the sales digest', () => {
  const since = firstSince(NOW, 'daily');
  const events = [
    {
      eventId: 'evt_flat',
      eventName: 'Flat Night',
      startsAtMs: NOW + 20 * DAY,
      capacity: 1_000,
      points: steady(10, 10),
    },
    {
      eventId: 'evt_surge',
      eventName: 'Surge Night',
      startsAtMs: NOW + 20 * DAY,
      capacity: 1_000,
      // 10 a day for 9 days, then 200 in the last day: its forecast moved.
      points: [...steady(10, 10).filter((p) => p.at <= NOW - DAY), { at: NOW, sold: 290 }],
    },
  ];

  it('gives each event’s sales since the last digest, from the history alone, the most moved forecast first', () => {
    const entries = salesDigestEntries({ now: NOW, since, events, finished: [] });
    expect(entries.map((e) => e.eventId)).toEqual(['evt_surge', 'evt_flat']);
    expect(entries[0]?.soldSince).toBeCloseTo(200);
    expect(entries[1]?.soldSince).toBeCloseTo(10);
    expect(entries[0]?.moved).toBeDefined();
  });

  it('renders one chart, the pace and forecast of each, and a text that says the same', () => {
    const message = salesDigestMessage({
      entries: salesDigestEntries({ now: NOW, since, events, finished: [] }),
      cadence: 'daily',
      since,
      now: NOW,
    });
    const json = JSON.stringify(message.blocks);
    expect(message.blocks.filter((b) => (b as { type: string }).type === 'data_visualization')).toHaveLength(1);
    expect(json).toContain('Forecast moved most: *Surge Night*');
    expect(json).toContain('+200 sold');
    expect(message.text).toContain('210 tickets sold since');
    expect(message.text).toContain('2 watched events');
    // "since" reads in each reader's zone; clients that cannot render the token read the UTC minute, said so.
    const sinceIso = new Date(since).toISOString();
    expect(json).toContain(`|${sinceIso.slice(0, 10)} ${sinceIso.slice(11, 16)} UTC>`);
  });

  it('says so when nothing is watched, and lets no outside text become markup', () => {
    expect(salesDigestMessage({ entries: [], cadence: 'weekly', since, now: NOW }).text).toContain(
      'no watched event to report on',
    );
    const hostile = salesDigestMessage({
      entries: salesDigestEntries({
        now: NOW,
        since,
        events: events.map((e) => ({ ...e, eventName: '<!channel> <@U0123456> *bold*' })),
        finished: [],
      }),
      cadence: 'weekly',
      since,
      now: NOW,
    });
    expect(strayMarkup(hostile)).toEqual([]);
  });
});
