import { describe, expect, it } from 'vitest';
import type { Subscription } from '../../src/digest/subscription.js';
import { digestOnMessage } from '../../src/render/digest-blocks.js';
import {
  eventCardMessage,
  eventChoicesMessage,
  eventListMessage,
  eventSection,
} from '../../src/render/event-blocks.js';
import { homeView } from '../../src/render/home-view.js';
import { eventOption, watchModalView } from '../../src/render/modal-views.js';
import { md } from '../../src/render/mrkdwn.js';
import { promoAnnouncement, promoDoneMessage } from '../../src/render/promo-blocks.js';
import { watchListMessage } from '../../src/render/watch-list-blocks.js';
import { eventSchema } from '../../src/ticketing/schemas.js';
import type { Watch } from '../../src/watches/watch.js';
import { describeCondition, type WatchCondition } from '../../src/watches/watch-condition.js';
import { shown } from '../helpers/shown.js';

const NOW = Date.parse('2026-11-27T09:00:00Z');
const event = (fields: Record<string, unknown>) =>
  eventSchema.parse({
    id: 'evt_3f2c1a9e-8b7d-4c6e-9f01-000000000001',
    name: 'Jazz Night',
    status: 'published',
    startDate: '2026-12-01T13:15:00Z',
    endDate: '2026-12-01T16:15:00Z',
    timezone: 'Asia/Kathmandu',
    ...fields,
  });
const all = (value: unknown) => JSON.stringify(value);

describe('the watch form', () => {
  it('shows its hint whole, every example of a condition', () => {
    const view = watchModalView({ privateMetadata: '{}', personal: false });
    const hints = all(view.blocks.map((block) => ('hint' in block ? block.hint : undefined)));
    expect(hints).toContain('checkIns &gt;= 100');
    expect(hints).not.toContain('…');
  });

  it('offers conditions in words, money with its currency, the syntax to type beside each', () => {
    const offered: WatchCondition[] = [
      { kind: 'figure', field: 'grossRevenue', op: '>=', value: 4102 },
      { kind: 'sold-share', percent: 90 },
      { kind: 'left', code: 'EARLYBIRD', max: 10, unit: 'percent' },
    ];
    const view = watchModalView({ privateMetadata: '{}', personal: false, offered, currency: 'EUR' });
    const block = view.blocks.find((each) => each.block_id === 'watch_offered') as {
      element: { options: { text: { text: string }; value: string; description?: { text: string } }[] };
    };
    const [revenue, sold, left] = block.element.options;
    expect(revenue?.text.text).toBe('Gross revenue ≥ 4,102.00 EUR');
    expect(revenue?.value).toBe('grossRevenue >= 4102');
    expect(revenue?.description?.text).toBe('grossRevenue &gt;= 4102');
    expect(sold?.text.text).toBe('90% of tickets sold');
    expect(left?.text.text).toBe('EARLYBIRD: 10% or fewer left');
    expect(block.element.options.map((o) => o.value)).toEqual(offered.map(describeCondition));
  });
});

describe('an event picker option', () => {
  it("names the event's zone with its local time", () => {
    expect(eventOption(event({})).text.text).toBe('Jazz Night · Tue, 1 Dec 2026, 19:00–22:00 UTC+05:45');
    const london = event({
      startDate: '2026-12-01T19:00:00Z',
      endDate: '2026-12-01T22:00:00Z',
      timezone: 'Europe/London',
    });
    expect(eventOption(london).text.text).toBe('Jazz Night · Tue, 1 Dec 2026, 19:00–22:00 GMT');
  });
});

describe('a name with Slack formatting characters', () => {
  it('reads as written, bold as a whole, with no stray asterisks styling parts of it', () => {
    const text = all(eventSection(event({ name: '*Bold* _claims_ ~strike~ `code` night' })));
    expect(text).not.toContain('**Bold*');
    expect(text).not.toMatch(/[*_~`](Bold|claims|strike|code)[*_~`]/);
    expect(text).toContain('Bold');
  });
});

describe('a cancelled event', () => {
  it('has no Watch or Promo button on its card, only its report', () => {
    const cancelled = event({ status: 'cancelled' });
    const card = all(eventCardMessage(cancelled, NOW, { promo: true }));
    expect(card).toContain('Cancelled');
    expect(card).not.toContain('"Watch"');
    expect(card).not.toContain('"Promo"');
    const list = all(eventListMessage({ title: md`Events`, events: [cancelled], promo: true }));
    expect(list).not.toContain('"Watch"');
    expect(list).not.toContain('"Promo"');
  });
});

describe('a search that matches cancelled events', () => {
  it('counts them as cancelled, neither upcoming nor over', () => {
    const message = eventChoicesMessage({
      events: [event({}), event({ status: 'cancelled' })],
      query: 'jazz',
      action: 'show',
      asOf: NOW,
      counts: { total: 14, upcoming: 11, cancelled: 1 },
    });
    expect(all(message)).toContain('11 upcoming, 2 over, 1 cancelled; upcoming first');
  });
});

describe('App Home watches', () => {
  it('says how many conditions past four are not shown', () => {
    const conditions = [10, 20, 30, 40, 50, 60].map((percent) => {
      const condition: WatchCondition = { kind: 'sold-share', percent };
      return { condition, key: describeCondition(condition), addedBy: 'U0123456', armed: true, crossings: 0 };
    });
    const watch: Watch = {
      channel: 'C0123456',
      personal: false,
      eventId: 'evt_1',
      eventName: 'Jazz Night',
      setBy: 'U0123456',
      createdAt: NOW,
      endsAtMs: undefined,
      startsAtMs: undefined,
      conditions,
    };
    const view = homeView({
      events: [],
      activity: { reports: [], promoChanges: [] },
      budget: { queued: { interactive: 0, background: 0 } } as never,
      now: NOW,
      watches: [watch],
    });
    const text = all(view.blocks);
    expect(text).toContain('`sold &gt;= 40%`');
    expect(text).not.toContain('`sold &gt;= 50%`');
    expect(text).toContain('and 2 more');
  });
});

describe('counts in words', () => {
  const outcome = { userId: 'U0123456', eventId: 'evt_1', eventName: 'Jazz Night', promoId: 'promo_1' };
  it('says "1 redemption" and "100 redemptions", never "redemption(s)"', () => {
    expect(all(promoDoneMessage({ ...outcome, quantity: 1 }, true))).toContain('*1* redemption.');
    expect(all(promoDoneMessage({ ...outcome, quantity: 100 }, true))).toContain('*100* redemptions.');
    expect(all(promoAnnouncement(shown({ ...outcome, quantity: 1 })))).toContain('*1* redemption.');
  });

  it('says "1 report every" and "1 event is watched", never "(s)"', () => {
    const text = all(
      watchListMessage({
        entries: [],
        intervalMs: 300_000,
        pace: { watchedEvents: 1, limit: 1, windowMs: 60_000, minIntervalMs: 30_000 },
        now: NOW,
        where: 'channel',
      }),
    );
    const withEntries = all(
      watchListMessage({
        entries: [
          {
            watch: {
              channel: 'C0123456',
              personal: false,
              eventId: 'evt_1',
              eventName: 'Jazz Night',
              setBy: 'U0123456',
              createdAt: NOW,
              endsAtMs: undefined,
              startsAtMs: undefined,
              conditions: [],
            },
            check: undefined,
            nextCheckAt: undefined,
          },
        ],
        intervalMs: 300_000,
        pace: { watchedEvents: 1, limit: 1, windowMs: 60_000, minIntervalMs: 30_000 },
        now: NOW,
        where: 'channel',
      }),
    );
    expect(text + withEntries).not.toContain('(s)');
    expect(withEntries).toContain('1 event is watched');
    expect(withEntries).toContain('1 report every');
  });
});

describe("the digest's first day", () => {
  it('reads as words, as other dates do, not as an ISO date', () => {
    const subscription: Subscription = {
      channelId: 'C0123456',
      time: '08:30',
      timezone: 'Asia/Kathmandu',
      days: 3,
      skipEmpty: false,
      createdBy: 'U0123456',
      createdAt: '2026-11-27T10:00:00.000Z',
      status: 'active',
    };
    const text = all(digestOnMessage(subscription, '2026-11-28', 'named'));
    expect(text).toContain('First one: Sat, Nov 28.');
    expect(text).not.toContain('2026-11-28');
  });
});
