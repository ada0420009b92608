import { describe, expect, it } from 'vitest';
import { digestMessage } from '../../src/render/digest-blocks.js';
import { homeView } from '../../src/render/home-view.js';
import { md } from '../../src/render/mrkdwn.js';
import {
  type ReportStatusContext,
  reportAbandonedMessage,
  reportMessage,
  reportProgressMessage,
} from '../../src/render/report-blocks.js';
import type { BudgetSnapshot } from '../../src/ticketing/budget.js';
import { eventSchema } from '../../src/ticketing/schemas.js';
import { sampleReport } from '../helpers/sample-report.js';
import { shown } from '../helpers/shown.js';

const report = {
  eventId: 'evt_1',
  eventName: 'Gala <!channel>',
  currency: 'EUR',
  ticketsSold: 120,
  capacity: 200,
  grossRevenue: 3456.5,
  checkIns: 40,
  byCategory: [
    { name: 'General', sold: 100, capacity: 150, revenue: 2500 },
    { name: 'VIP <b>', sold: 20, capacity: 50, revenue: 956.5 },
  ],
  salesByDay: Array.from({ length: 14 }, (_, i) => ({
    date: `2026-11-${String(i + 1).padStart(2, '0')}`,
    sold: i * 3,
  })),
  nested: { anything: true },
};

describe('report rendering', () => {
  it('shows headline figures as fields and lists as short tables with bars', () => {
    const message = reportMessage(shown(report), { eventId: 'evt_1' });
    expect(message).toMatchSnapshot();
    const text = JSON.stringify(message.blocks);
    expect(text).toContain('*Tickets sold*\\n120');
    expect(text).toContain('3,456.50 EUR');
    expect(text).toContain('█');
    expect(text).toContain('...and 4 more');
    expect(text).not.toContain('<!channel>');
    expect(text).not.toContain('<b>');
  });

  it('copes with a report that has no figures at all', () => {
    const message = reportMessage(shown({ status: 'pending' }), { eventId: 'evt_2' });
    expect(JSON.stringify(message.blocks)).toContain('no figures to show');
  });

  it('says where a report stands in the queue', () => {
    const message = reportProgressMessage({ state: 'queued', position: 2, estimatedWaitMs: 41_200 }, 'evt_1', {
      limit: 5,
      windowMs: 120_000,
    });
    expect(message.text).toBe('Report for evt_1 queued: position 2, about 42 s');
    // The limit is the configured one, never a copy of the spec's figure.
    expect(JSON.stringify(message.blocks)).toContain('allows 5 requests every 2 minutes');
  });

  it('renders every later state of a report in the same one place: the report, what went wrong, lost, abandoned', () => {
    const limit = { limit: 3, windowMs: 60_000 };
    const about: ReportStatusContext = { eventId: 'evt_1', describeError: () => md`the service is unavailable.` };
    const render = (status: Parameters<typeof reportProgressMessage>[0]) =>
      reportProgressMessage(status, 'Gala', limit, about);
    expect(render({ state: 'report', report: shown(report) })).toEqual(
      reportMessage(shown(report), { eventId: 'evt_1' }),
    );
    const failed = ':warning: Report for `Gala`: the service is unavailable.';
    expect(render({ state: 'failed', error: new Error('x') }).text).toBe(failed);
    expect(render({ state: 'expired', error: new Error('x') }).text).toBe(failed);
    expect(render({ state: 'lost' }).text).toBe(
      ':warning: Report for `Gala`: it was not fetched: Redis lost its place in the queue (emptied or evicted). Ask again with `/events report evt_1`.',
    );
    expect(render({ state: 'abandoned' })).toEqual(reportAbandonedMessage('evt_1'));
    expect(render({ state: 'fetching', position: 0, estimatedWaitMs: 0 })).toEqual(
      reportProgressMessage({ state: 'fetching', position: 0, estimatedWaitMs: 0 }, 'Gala', limit),
    );
  });
});

describe('App Home', () => {
  /** The budget as Home shows it: 170 of 180 left, no answer's headers yet unless said. */
  const budget = (over: Partial<BudgetSnapshot> = {}): BudgetSnapshot => ({
    limit: 180,
    remaining: 170,
    resetAt: 1_000_000,
    pausedUntil: undefined,
    inFlight: 0,
    queued: { interactive: 0, background: 0 },
    reserve: 27,
    lastObservation: undefined,
    rateLimitedResponses: 0,
    ...over,
  });

  it("gives the times of recent reports in the reader's zone, never as raw UTC text", () => {
    const at = '2026-11-23T10:05:00.000Z';
    const view = homeView({
      events: [],
      activity: { reports: [{ at, userId: 'U0EDITOR', eventId: 'evt_1', eventName: 'Gala' }], promoChanges: [] },
      budget: budget(),
      now: 1_000_000,
    });
    const text = JSON.stringify(view.blocks);
    expect(text).toContain(
      `• Gala · <!date^${Date.parse(at) / 1000}^{date_short_pretty} at {time}|2026-11-23 10:05 UTC>`,
    );
  });

  it('stays within 100 blocks and shows the budget from the last headers', () => {
    const view = homeView({
      events: [],
      activity: { reports: [], promoChanges: [] },
      budget: budget({
        queued: { interactive: 0, background: 2 },
        lastObservation: { limit: 180, remaining: 171, resetAt: 1_030_000, observedAt: 1_000_000 },
      }),
      now: 1_000_000,
    });
    expect(view.blocks.length).toBeLessThanOrEqual(100);
    expect(JSON.stringify(view.blocks)).toContain(
      '171 of 180 requests left in this window (resets in 30 s); 2 waiting.',
    );
  });
});

describe('what a report table measures', () => {
  const lineOf = (text: string, label: string) => text.split('\\n').find((line) => line.startsWith(label)) ?? '';
  const bars = (line: string) => (line.match(/█/g) ?? []).length;

  it('measures "By category" bars by tickets sold, never by the first numeric column (price)', () => {
    const text = JSON.stringify(reportMessage(shown(sampleReport()), { eventId: 'evt_1' }).blocks);
    // General: 450 sold at 40; VIP: 70 sold at 114.29. Bars by price would make VIP the longer one.
    expect(bars(lineOf(text, 'General'))).toBeGreaterThan(bars(lineOf(text, 'VIP')));
    expect(lineOf(text, 'General')).toContain('450');
  });

  it('measures a table by the figure named like the table when none says sold', () => {
    const report = sampleReport({
      byCategory: undefined,
      salesByDay: undefined,
      promos: undefined,
      revenueByMonth: [
        { day: 'Jan', refunds: 90, revenue: 10 },
        { day: 'Feb', refunds: 1, revenue: 100 },
      ],
    });
    const text = JSON.stringify(reportMessage(shown(report), { eventId: 'evt_1' }).blocks);
    expect(bars(lineOf(text, 'Feb'))).toBeGreaterThan(bars(lineOf(text, 'Jan')));
  });

  it("gives the report's generation time in the reader's zone, never as raw UTC ISO text", () => {
    const text = JSON.stringify(reportMessage(shown(sampleReport()), { eventId: 'evt_1' }).blocks);
    expect(text).toContain(`<!date^${Date.parse('2026-12-01T08:55:00.000Z') / 1000}^`);
    expect(text).not.toContain('2026-12-01T08:55');
  });
});

describe('days in words', () => {
  it('labels sales by day as a day in words, not an ISO date', () => {
    const text = JSON.stringify(reportMessage(shown(report), { eventId: 'evt_1' }).blocks);
    expect(text).toContain('Sun, Nov 1');
    expect(text).not.toContain('2026-11-01');
  });

  it('names the daily digest’s day in words in its notification text', () => {
    const when = { startDate: '2026-11-28T10:00:00Z', endDate: '2026-11-28T11:00:00Z', timezone: 'UTC' };
    const event = eventSchema.parse({ id: 'evt_3f2c1a9e-8b7d-4c6e-9f01-000000000001', name: 'Jazz Night', ...when });
    for (const entries of [[{ event, day: '2026-11-28' }], []]) {
      const { text } = digestMessage({ entries, days: 1, date: '2026-11-28' });
      expect(text).toContain('Daily digest for Saturday 28 November');
      expect(text).not.toContain('2026-11-28');
    }
  });
});
