import { describe, expect, it } from 'vitest';
import type { Comparables } from '../../src/forecast/comparables.js';
import type { Forecast } from '../../src/forecast/forecast.js';
import {
  CHART_LIMITS,
  type DataVisualizationBlock,
  figuresTableBlocks,
  forecastWords,
  promoChartBlocks,
  promoTableBlocks,
  reportSalesBlocks,
  salesChartBlocks,
} from '../../src/render/sales-blocks.js';
import { shown } from '../helpers/shown.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.parse('2026-12-01T09:00:00Z');
const START = NOW + 10 * DAY;

const sellingOut: Extract<Forecast, { kind: 'forecast' }> = {
  kind: 'forecast',
  method: 'booking-curve',
  learnedFrom: 5,
  sold: 300,
  capacity: 500,
  atStart: { low: 450, likely: 500, high: 500 },
  sellOut: { earliest: START - 5 * DAY - HOUR, likely: START - 3 * DAY, latest: START - 2 * DAY - HOUR },
  pace: { perHourLastDay: 6, perDayLastWeek: 140, perDayWeekBefore: 120 },
};

/** Every chart in the blocks, checked against Slack's limits for the block. */
function charts(blocks: unknown[]): DataVisualizationBlock[] {
  const found = blocks.filter(
    (b): b is DataVisualizationBlock => (b as { type?: string }).type === 'data_visualization',
  );
  for (const chart of found) {
    expect(chart.title.length).toBeLessThanOrEqual(CHART_LIMITS.title);
    expect(chart.chart.series.length).toBeGreaterThanOrEqual(1);
    expect(chart.chart.series.length).toBeLessThanOrEqual(CHART_LIMITS.series);
    expect(new Set(chart.chart.series.map((s) => s.name)).size).toBe(chart.chart.series.length);
    expect(new Set(chart.chart.axis_config.categories).size).toBe(chart.chart.axis_config.categories.length);
    expect(chart.chart.axis_config.categories.length).toBeLessThanOrEqual(CHART_LIMITS.categories);
    for (const label of chart.chart.axis_config.categories)
      expect(Array.from(label).length).toBeLessThanOrEqual(CHART_LIMITS.label);
    for (const series of chart.chart.series)
      expect(series.data.map((d) => d.label)).toEqual(chart.chart.axis_config.categories);
  }
  return found;
}

describe('the sales chart', () => {
  const points = Array.from({ length: 60 }, (_, i) => ({ at: NOW - (60 - i) * 6 * HOUR, sold: i * 5 }));

  it('draws sold over time with capacity and the forecast at the start, within the block’s limits', () => {
    const blocks = salesChartBlocks({
      eventName: 'A very long event name that goes on well past fifty characters',
      points,
      capacity: 500,
      startsAtMs: START,
      forecast: sellingOut,
      zone: 'America/New_York',
    });
    const [chart] = charts(blocks);
    if (!chart) throw new Error('no chart');
    expect(chart.chart.type).toBe('line');
    expect(chart.chart.axis_config.categories.length).toBeLessThanOrEqual(CHART_LIMITS.categories);
    expect(chart.chart.series.map((s) => s.name)).toEqual(['Sold, then forecast', 'Capacity']);
    expect(chart.chart.axis_config.categories.at(-1)).toBe('Start Dec 11');
    expect(chart.chart.series[0]?.data.at(-1)?.value).toBe(500);
    expect(chart.chart.series[0]?.data[0]?.value).toBe(0);
  });

  it('says there are too few reads instead of drawing a line through two dots', () => {
    const blocks = salesChartBlocks({
      eventName: 'Jazz',
      points: points.slice(0, 2),
      capacity: 500,
      startsAtMs: START,
      forecast: undefined,
      zone: 'UTC',
    });
    expect(charts(blocks)).toHaveLength(0);
    expect(JSON.stringify(blocks)).toContain('2 reports read so far: a sales chart needs at least 3');
    const one = salesChartBlocks({
      eventName: 'Jazz',
      points: points.slice(0, 1),
      capacity: 500,
      startsAtMs: START,
      forecast: undefined,
      zone: 'UTC',
    });
    expect(JSON.stringify(one)).toContain('1 report read so far');
  });
});

describe('the sales chart against similar events', () => {
  // Three similar finished events of 500 seats that sold straight to 60%, 80% and 100% over 20 days.
  const members = [0.6, 0.8, 1].map((share, i) => {
    const startsAtMs = NOW - (i + 3) * DAY;
    const points = Array.from({ length: 41 }, (_, j) => ({
      at: startsAtMs - 20 * DAY + j * 12 * HOUR,
      sold: Math.round((share * 500 * j) / 40),
    }));
    return { eventId: `evt_${i}`, startsAtMs, capacity: 500, final: share * 500, opensAt: points[0]?.at, points };
  });
  const comparables: Comparables = {
    kind: 'compared',
    beforeMs: START - NOW,
    share: 0.4,
    capacity: 500,
    count: 3,
    atThisPoint: { low: 0.3, median: 0.4, high: 0.5 },
    final: { low: 0.6, median: 0.8, high: 1 },
    alike: [],
    members,
  };
  const points = Array.from({ length: 11 }, (_, i) => ({ at: NOW - (10 - i) * DAY, sold: i * 20 }));

  it('draws their lowest, median and highest at the same time before their start, and at the start what they ended at', () => {
    const [chart] = charts(
      salesChartBlocks({
        eventName: 'Jazz',
        points,
        capacity: 500,
        startsAtMs: START,
        forecast: sellingOut,
        zone: 'UTC',
        comparables,
      }),
    );
    const series = chart?.chart.series ?? [];
    expect(series.map((s) => s.name)).toEqual([
      'Sold, then forecast',
      'Capacity',
      'Similar: lowest',
      'Similar: median',
      'Similar: highest',
    ]);
    // Ten days before the start they were halfway through: 150, 200 and 250 of 500; at the start 300-500.
    const values = (name: string) => series.find((s) => s.name === name)?.data.map((d) => d.value);
    expect(values('Similar: lowest')?.slice(-2)).toEqual([150, 300]);
    expect(values('Similar: median')?.slice(-2)).toEqual([200, 400]);
    expect(values('Similar: highest')?.slice(-2)).toEqual([250, 500]);
    expect(values('Similar: lowest')?.[0]).toBe(0);
  });

  it('says where the event stands under the chart, in the report and its text', () => {
    const sales = reportSalesBlocks({
      eventName: 'Jazz',
      figures: shown({
        report: {},
        insight: { points, capacity: 500, startsAtMs: START, timezone: 'UTC', forecast: sellingOut, comparables },
      }),
    });
    expect(sales.text).toContain(
      '40% sold with 10 days to go; similar events were at 30-50% (median 40%) then, and ended at 60-100% (3 events).',
    );
    expect(JSON.stringify(sales.blocks)).toContain(':bar_chart: 40% sold with 10 days to go');
  });
});

describe('promo codes as a bar chart and a table', () => {
  const report = {
    promos: Array.from({ length: 130 }, (_, i) => ({
      code: i === 1 ? 'CODE0' : `CODE${i}`,
      redeemed: i,
      quantity: 200,
    })),
  };

  it('charts redeemed against quantity, each label once', () => {
    const [chart] = charts(promoChartBlocks(report));
    expect(chart?.chart.series.map((s) => s.name)).toEqual(['Redeemed', 'Quantity']);
  });

  it('tables at most 100 rows of 4 cells, saying how many more there are', () => {
    const blocks = promoTableBlocks(report);
    const table = blocks[0] as { type: string; rows: unknown[][] };
    expect(table.type).toBe('table');
    expect(table.rows).toHaveLength(100);
    expect(table.rows.every((row) => row.length === 4)).toBe(true);
    expect(JSON.stringify(blocks[1])).toContain('31 more promo codes');
  });

  it('tables the report’s figures too, each with its value as the report shows it', () => {
    const [table] = figuresTableBlocks({ ticketsSold: 1200, grossRevenue: 4800.5, currency: 'EUR' }) as unknown as [
      { rows: { text: string }[][] },
    ];
    expect(table.rows.map((row) => row.map((cell) => cell.text))).toEqual([
      ['Figure', 'Value'],
      ['Tickets sold', '1,200'],
      ['Gross revenue', expect.stringContaining('4,800.5')],
    ]);
  });

  it('keeps labels to 20 characters, unique even when long names differ only past them', () => {
    const long = {
      promos: [
        { code: '🎟️🎟️ EARLYBIRD-WINTER-2026-A', redeemed: 1, quantity: 10 },
        { code: '🎟️🎟️ EARLYBIRD-WINTER-2026-B', redeemed: 2, quantity: 10 },
        { code: '🎟️🎟️ EARLYBIRD-WINTER-2026-C', redeemed: 3, quantity: 10 },
        { code: 'SHORT (2)', redeemed: 3, quantity: 10 },
        { code: 'SHORT', redeemed: 3, quantity: 10 },
        { code: 'SHORT', redeemed: 3, quantity: 10 },
      ],
    };
    const [chart] = charts(promoChartBlocks(long));
    expect(chart?.chart.axis_config.categories).toHaveLength(6);
    expect(chart?.chart.axis_config.categories).toContain('SHORT (2)');
  });

  it('writes every cell as raw text, and keeps a table of long codes within 10,000 characters', () => {
    const wide = {
      promos: Array.from({ length: 99 }, (_, i) => ({ code: `${'X'.repeat(300)}${i}`, redeemed: i, quantity: 1_000 })),
    };
    const blocks = promoTableBlocks(wide);
    const table = blocks[0] as { rows: { type: string; text: string }[][] };
    const cells = table.rows.flat();
    expect(cells.every((c) => c.type === 'raw_text' && typeof c.text === 'string')).toBe(true);
    expect(cells.every((c) => c.text.length <= CHART_LIMITS.tableCell)).toBe(true);
    expect(cells.reduce((sum, c) => sum + c.text.length, 0)).toBeLessThanOrEqual(CHART_LIMITS.tableText);
    const shown = table.rows.length - 1;
    expect(shown).toBeLessThan(99);
    expect(JSON.stringify(blocks[1])).toContain(`${99 - shown} more promo codes`);
  });

  it('puts one table in a report message: the promo codes’, else the figures’', () => {
    const tables = (report: Record<string, unknown>) =>
      reportSalesBlocks({ eventName: 'Jazz', figures: shown({ report, insight: undefined }) }).blocks.filter(
        (b) => (b as { type: string }).type === 'table',
      ) as unknown as { rows: { text: string }[][] }[];
    const withCodes = tables({ ticketsSold: 5, promos: [{ code: 'A', redeemed: 1, quantity: 2 }] });
    expect(withCodes).toHaveLength(1);
    expect(withCodes[0]?.rows[0]?.[0]?.text).toBe('Promo code');
    const without = tables({ ticketsSold: 5 });
    expect(without).toHaveLength(1);
    expect(without[0]?.rows[0]?.[0]?.text).toBe('Figure');
  });

  it('has nothing to show for a report that names no promo codes', () => {
    expect(promoChartBlocks({ ticketsSold: 3 })).toEqual([]);
    expect(promoTableBlocks({ ticketsSold: 3 })).toEqual([]);
  });
});

describe('the forecast in words', () => {
  it('gives the sell-out day, how long before the event as a range, the pace and the method', () => {
    const words = forecastWords(sellingOut, START);
    expect(words).toContain('Projected to sell out around <!date^');
    expect(words).toContain('2-5 days before the event');
    expect(words).toContain('140/day over the last week');
    expect(words).toContain('from the sales curves of 5 similar past events');
  });

  it('gives the projected sold at the start with its range when it does not sell out, and says a pace guess is rough', () => {
    const words = forecastWords(
      {
        ...sellingOut,
        method: 'recent-pace',
        learnedFrom: 0,
        sellOut: undefined,
        atStart: { low: 320, likely: 380, high: 460 },
      },
      START,
    );
    expect(words).toContain('Projected 380 of 500 sold by the start (320-460)');
    expect(words).toContain('a rough guess from the recent pace');
  });

  it('says a calibrated range is 80% likely, for the sold at the start and the sell-out days alike', () => {
    const calibrated = { ...sellingOut, coverage: 0.8 };
    const atStart = forecastWords(
      { ...calibrated, sellOut: undefined, atStart: { low: 320, likely: 380, high: 460 } },
      START,
    );
    expect(atStart).toContain('Projected 380 of 500 sold by the start, 80% likely between 320 and 460');
    expect(forecastWords(calibrated, START)).toContain('80% likely 2-5 days before the event');
    const open = forecastWords(
      { ...calibrated, sellOut: { earliest: START - 5 * DAY - HOUR, likely: START - 3 * DAY, latest: undefined } },
      START,
    );
    expect(open).toContain('80% likely up to 5 days before the event, or not before it at all');
    // Quartile ranges, not calibrated, make no such claim.
    expect(forecastWords(sellingOut, START)).not.toContain('80%');
  });

  it('names the learned method, the past events it learned from and how many it was backtested on', () => {
    const learned = { ...sellingOut, basis: 'pickup-share', coverage: 0.8, backtestedOn: 4 };
    const words = forecastWords(learned, START);
    expect(words).toContain('(by pickup, learned from 5 similar past events, backtested on 4 of them)');
    expect(words).not.toContain('sales curves');
    expect(forecastWords({ ...learned, basis: 'recent-pace' }, START)).toContain(
      '(by the recent pace, learned from 5 similar past events, backtested on 4 of them)',
    );
    // Issue 45: learned from unlike events (fewer than 3 were similar), it does not call them similar.
    expect(forecastWords({ ...learned, unlike: true }, START)).toContain(
      '(by pickup, learned from 5 past events of other sizes or selling periods, backtested on 4 of them)',
    );
  });
});
