import { describe, expect, it } from 'vitest';
import { launchChromium } from './launch-chromium.js';
import { useSandboxInBrowser } from './sandbox-in-browser.js';

// The sandbox page draws Slack's `data_visualization` charts (on a canvas, by Chart.js served from
// the sandbox itself) and `table` blocks. What the page drew is read back from the chart: each
// point's, bar's or slice's place on the canvas turned back into a value through the chart's own
// scales, not the data it was handed.
const rig = useSandboxInBrowser(() => launchChromium());
const { type, simulator, postFromBot } = rig;

interface Series {
  name: string;
  data: { label: string; value: number }[];
}
interface ChartBlock {
  type: 'data_visualization';
  title: string;
  chart:
    | {
        type: 'line' | 'bar' | 'area';
        series: Series[];
        axis_config: { categories: string[]; x_label?: string; y_label?: string };
      }
    | { type: 'pie'; segments: { label: string; value: number }[] };
}
interface TableBlock {
  type: 'table';
  rows: ({ type: 'raw_text'; text: string } | { type: 'rich_text'; elements: unknown[] })[][];
  column_settings?: ({ align?: 'left' | 'center' | 'right' } | null)[];
}
type Block = { type: string } & Record<string, unknown>;

/** What one chart on the canvas shows, read back from where Chart.js drew it. */
interface Drawn {
  type: string;
  title: string;
  xLabel: string | undefined;
  yLabel: string | undefined;
  /** The legend's names, one per series (or per slice of a pie). */
  legend: string[];
  /** Line, bar, area: each series' points as the category under each and the value at its height. */
  series: { name: string; points: { label: string; value: number }[]; filled: boolean }[];
  /** Pie: each slice's label and its share of the circle. */
  slices: { label: string; share: number }[];
}

/**
 * Runs in the page (this project's TypeScript has no DOM types): every chart drawn in the message
 * with this timestamp, read back from the canvas through Chart.js's own record of what it drew.
 */
const DRAWN_CHARTS = `(ts) => {
  const message = document.querySelector('[data-ts="' + ts + '"]');
  return [...message.querySelectorAll('[data-testid=chart] canvas')].map((canvas) => {
    const chart = window.Chart.getChart(canvas);
    if (!chart) return null;
    const type = chart.config.type;
    const title = chart.options.plugins.title;
    const legend = chart.legend.legendItems.map((item) => item.text);
    if (type === 'pie' || type === 'doughnut') {
      const arcs = chart.getDatasetMeta(0).data;
      return { type, title: title.display ? title.text : '', legend, series: [], slices: arcs.map((arc, i) => {
        const { startAngle, endAngle } = arc.getProps(['startAngle', 'endAngle'], true);
        return { label: chart.data.labels[i], share: (endAngle - startAngle) / (2 * Math.PI) };
      }) };
    }
    const x = chart.scales.x;
    const y = chart.scales.y;
    const series = chart.data.datasets.map((dataset, i) => ({
      name: dataset.label,
      filled: Boolean(dataset.fill),
      points: chart.getDatasetMeta(i).data.map((element) => {
        const at = element.getProps(['x', 'y'], true);
        return { label: x.getLabelForValue(Math.round(x.getValueForPixel(at.x))), value: y.getValueForPixel(at.y) };
      }),
    }));
    return {
      type,
      title: title.display ? title.text : '',
      xLabel: x.options.title.display ? x.options.title.text : undefined,
      yLabel: y.options.title.display ? y.options.title.text : undefined,
      legend,
      series,
      slices: [],
    };
  });
}`;

/** Runs in the page: each table in the message as its cells' text and alignment, row by row. */
const DRAWN_TABLES = `(ts) => {
  const message = document.querySelector('[data-ts="' + ts + '"]');
  return [...message.querySelectorAll('[data-testid=table]')].map((table) =>
    [...table.querySelectorAll('tr')].map((row) =>
      [...row.children].map((cell) => ({ text: cell.innerText, align: getComputedStyle(cell).textAlign })),
    ),
  );
}`;

const drawnCharts = async (ts: string) =>
  (await rig.page.evaluate(`(${DRAWN_CHARTS})(${JSON.stringify(ts)})`)) as (Drawn | null)[];
const drawnTables = async (ts: string) =>
  (await rig.page.evaluate(`(${DRAWN_TABLES})(${JSON.stringify(ts)})`)) as { text: string; align: string }[][][];

/** Values read back from pixels, to a thousandth of a unit. */
const round = (value: number) => Math.round(value * 1000) / 1000;

/** What a chart block asks to be drawn, in the shape `Drawn` reads back. */
function expected(block: ChartBlock) {
  const { chart } = block;
  if (chart.type === 'pie') {
    const total = chart.segments.reduce((sum, segment) => sum + segment.value, 0);
    return {
      type: 'pie',
      title: block.title,
      legend: chart.segments.map((segment) => segment.label),
      slices: chart.segments.map((segment) => ({ label: segment.label, share: round(segment.value / total) })),
    };
  }
  return {
    type: chart.type === 'area' ? 'line' : chart.type,
    title: block.title,
    xLabel: chart.axis_config.x_label,
    yLabel: chart.axis_config.y_label,
    legend: chart.series.map((series) => series.name),
    series: chart.series.map((series) => ({
      name: series.name,
      filled: chart.type === 'area',
      points: series.data.map((point) => ({ label: point.label, value: point.value })),
    })),
  };
}

/** What was drawn, in the shape of `expected` (values rounded). */
function readBack(drawn: Drawn) {
  if (drawn.type === 'pie')
    return {
      type: drawn.type,
      title: drawn.title,
      legend: drawn.legend,
      slices: drawn.slices.map((slice) => ({ label: slice.label, share: round(slice.share) })),
    };
  return {
    type: drawn.type,
    title: drawn.title,
    xLabel: drawn.xLabel,
    yLabel: drawn.yLabel,
    legend: drawn.legend,
    series: drawn.series.map((series) => ({
      name: series.name,
      filled: series.filled,
      points: series.points.map((point) => ({ label: point.label, value: round(point.value) })),
    })),
  };
}

/** A table block's cells as text, row by row. */
const cellTexts = (table: TableBlock) => table.rows.map((row) => row.map((cell) => textOfCell(cell)));
function textOfCell(cell: TableBlock['rows'][number][number]): string {
  if (cell.type === 'raw_text') return cell.text;
  const walk = (node: unknown): string => {
    const each = node as { text?: string; elements?: unknown[] };
    return each.elements ? each.elements.map(walk).join('') : (each.text ?? '');
  };
  return walk(cell);
}

/** The newest message in the sandbox whose blocks include a chart and a table. */
function newestWithChartAndTable(after: number) {
  return rig.stack.sandbox.state.messages
    .slice(after)
    .filter((message) => {
      const types = (message.blocks as Block[]).map((block) => block.type);
      return types.includes('data_visualization') && types.includes('table');
    })
    .at(-1);
}

describe('the sandbox draws charts and tables', () => {
  it('loads Chart.js from the sandbox itself, and nothing from anywhere else', async () => {
    const loaded = (await rig.page.evaluate(
      "performance.getEntriesByType('resource').map((entry) => entry.name)",
    )) as string[];
    const origin = new URL(rig.stack.url).origin;
    expect(loaded).toContain(`${origin}/vendor/chart.umd.js`);
    expect(loaded.filter((url) => !url.startsWith(`${origin}/`))).toEqual([]);
    expect(await rig.page.evaluate('typeof window.Chart?.getChart')).toBe('function');
  });

  it("draws a report's charts and table with the values of its blocks", async () => {
    await rig.page.click('[data-channel=CGENERAL01]');
    // The first events listed have a sales history seeded at start: a sales line as well as the promo bars.
    await rig.stack.salesHistorySeeded;
    await rig.stack.bot.catalog.snapshot();
    const now = Date.now();
    const promoted = new Set(simulator().catalog.promos.map((promo) => promo.eventId));
    const candidates = simulator().catalog.events.filter(
      (each) => each.status === 'published' && each.startsAtMs > now && promoted.has(each.id),
    );
    const histories = await Promise.all(candidates.map((each) => rig.stack.bot.history.read(each.id)));
    const event = candidates.find((_, i) => (histories[i]?.points.length ?? 0) >= 3);
    if (!event) throw new Error('the seed has an upcoming event with promo codes and a sales history');
    const before = rig.stack.sandbox.state.messages.length;
    await type(`/events report ${event.id}`);
    await expect.poll(() => newestWithChartAndTable(before), { timeout: 20_000 }).toBeDefined();
    const message = newestWithChartAndTable(before);
    if (!message) throw new Error('unreachable');
    const blocks = message.blocks as Block[];
    const charts = blocks.filter((block) => block.type === 'data_visualization') as unknown as ChartBlock[];
    const tables = blocks.filter((block) => block.type === 'table') as unknown as TableBlock[];
    expect(charts.map((chart) => chart.chart.type)).toEqual(['line', 'bar']);

    await expect.poll(async () => (await drawnCharts(message.ts)).length, { timeout: 10_000 }).toBe(charts.length);
    const drawn = await drawnCharts(message.ts);
    expect(drawn.map((chart) => (chart ? readBack(chart) : null))).toEqual(charts.map(expected));
    const cells = (await drawnTables(message.ts)).map((table) => table.map((row) => row.map((cell) => cell.text)));
    expect(cells).toEqual(tables.map(cellTexts));
    // Nothing is left as a placeholder.
    const shown = await rig.page.locator(`[data-ts="${message.ts}"]`).innerText();
    expect(shown).not.toContain('(data_visualization block)');
    expect(shown).not.toContain('(table block)');
  });

  it('draws line, bar, area and pie charts with their titles, axis labels and values', async () => {
    await rig.page.click('[data-channel=CGENERAL01]');
    const categories = ['Mon', 'Tue', 'Wed', 'Thu'];
    const series = (name: string, values: number[]) => ({
      name,
      data: values.map((value, i) => ({ label: categories[i] as string, value })),
    });
    const axis_config = { categories, x_label: 'Day', y_label: 'Tickets' };
    const charts: ChartBlock[] = [
      {
        type: 'data_visualization',
        title: 'A line',
        chart: {
          type: 'line',
          series: [series('Sold', [3, 17, 42.5, 60]), series('Cap', [80, 80, 80, 80])],
          axis_config,
        },
      },
      {
        type: 'data_visualization',
        title: 'Some bars',
        chart: { type: 'bar', series: [series('Redeemed', [0, 5, 12, 7])], axis_config },
      },
      {
        type: 'data_visualization',
        title: 'An area',
        chart: { type: 'area', series: [series('Web', [10, 20, 15, 30]), series('Door', [1, 2, 3, 4])], axis_config },
      },
      {
        type: 'data_visualization',
        title: 'A pie',
        chart: {
          type: 'pie',
          segments: [
            { label: 'EARLYBIRD', value: 45 },
            { label: 'FRIENDS', value: 30 },
            { label: 'STAFF', value: 25 },
          ],
        },
      },
    ];
    await postFromBot({ text: 'four-charts', blocks: charts });
    const message = rig.page.locator('[data-testid=message]', { hasText: 'A line' }).last();
    await expect.poll(() => message.count(), { timeout: 10_000 }).toBe(1);
    const ts = (await message.getAttribute('data-ts')) as string;
    await expect.poll(async () => (await drawnCharts(ts)).length, { timeout: 10_000 }).toBe(4);
    const drawn = await drawnCharts(ts);
    expect(drawn.map((chart) => (chart ? readBack(chart) : null))).toEqual(charts.map(expected));
    // Each is on a canvas that says what it shows, for those who cannot see it.
    const labels = await message
      .locator('[data-testid=chart] canvas')
      .evaluateAll((canvases) => canvases.map((canvas) => canvas.getAttribute('aria-label')));
    expect(labels[0]).toContain('A line');
    expect(labels[0]).toContain('Sold: Mon 3, Tue 17, Wed 42.5, Thu 60');
    expect(labels[3]).toContain('EARLYBIRD 45');
  });

  it('draws a table of plain and rich text cells, aligned as its column settings say', async () => {
    await rig.page.click('[data-channel=CGENERAL01]');
    const table: TableBlock = {
      type: 'table',
      column_settings: [{ align: 'left' }, null, { align: 'right' }],
      rows: [
        [
          { type: 'raw_text', text: 'Code' },
          { type: 'raw_text', text: 'Note' },
          { type: 'raw_text', text: 'Left' },
        ],
        [
          { type: 'raw_text', text: 'EARLYBIRD <b>' },
          {
            type: 'rich_text',
            elements: [
              {
                type: 'rich_text_section',
                elements: [
                  { type: 'text', text: 'runs ' },
                  { type: 'text', text: 'low', style: { bold: true } },
                ],
              },
            ],
          },
          { type: 'raw_text', text: '1,204' },
        ],
      ],
    };
    await postFromBot({ text: 'a-table', blocks: [table] });
    const message = rig.page.locator('[data-testid=message]', { hasText: 'EARLYBIRD <b>' }).last();
    await expect.poll(() => message.count(), { timeout: 10_000 }).toBe(1);
    const ts = (await message.getAttribute('data-ts')) as string;
    const [drawn] = await drawnTables(ts);
    expect(drawn?.map((row) => row.map((cell) => cell.text))).toEqual(cellTexts(table));
    expect(drawn?.[1]?.map((cell) => cell.align)).toEqual(['left', 'left', 'right']);
    expect(await message.locator('[data-testid=table] b, [data-testid=table] strong').innerText()).toBe('low');
  });
});
