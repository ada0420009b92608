import type { Shown } from '../figures/may-show-figures.js';
import { type Comparables, type Spread, similarBand } from '../forecast/comparables.js';
import type { Forecast } from '../forecast/forecast.js';
import type { SalesPoint } from '../history/sales-point.js';
import { quantityRows, topFigures } from '../reports/report-figures.js';
import type { EventReport } from '../ticketing/schemas.js';
import { type Block, context, LIMITS, mrkdwnSection, type SlackMessage } from './block-kit.js';
import { comparablesWords } from './comparables-words.js';
import { clip, escapeText, joinMrkdwn, type Mrkdwn, md, readerDay, shorten } from './mrkdwn.js';
import { plural } from './plural.js';
import { formatNumber, humanise, reportCurrency } from './report-blocks.js';

/**
 * Sales pace, forecasts and their charts (issue 28): Slack's `data_visualization` block (a line
 * chart of sold over time with capacity and the forecast; a bar chart of each promo code's
 * redeemed against its quantity) and `table` block, within their limits (a title of at most 50
 * characters, at most 6 series whose labels are the axis categories, a table of at most 100 rows
 * of 20 cells). Every message that carries them keeps a plain `text` saying the same.
 */

/** Slack's chart block (not in @slack/types yet): https://docs.slack.dev/reference/block-kit/blocks/data-visualization-block */
export interface DataVisualizationBlock {
  type: 'data_visualization';
  title: string;
  chart: {
    type: 'line' | 'bar';
    series: { name: string; data: { label: string; value: number }[] }[];
    axis_config: { categories: string[]; x_label?: string; y_label?: string };
  };
}

export const CHART_LIMITS = {
  title: 50,
  series: 6,
  /** Data points in a series (one per category). */
  categories: 20,
  /** Characters in a category label. */
  label: 20,
  tableRows: 100,
  tableCells: 20,
  /** Characters in one table cell, and in all of a table's cells together. */
  tableCell: 100,
  tableText: 10_000,
} as const;
/** Fewest points a line is drawn through. */
export const MIN_CHART_POINTS = 3;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Outside text shown as plain text (chart labels, table cells): nothing Slack could read as markup. */
const plain = (text: string, max: number) =>
  Array.from(text.replace(/[<>]/g, (c) => (c === '<' ? '‹' : '›')))
    .slice(0, max)
    .join('') || '-';

/**
 * Category labels as a chart needs them: plain, at most `CHART_LIMITS.label` characters, unique
 * (a repeated label is cut shorter to take a " (n)" that no other label has).
 */
export function chartLabels(texts: readonly string[]): string[] {
  const max = CHART_LIMITS.label;
  const taken = new Set<string>();
  const firsts = texts.map((text) => plain(text, max));
  return firsts.map((first, i) => {
    let label = first;
    for (let n = i + 1; taken.has(label) || (label !== first && firsts.includes(label)); n++) {
      const suffix = ` (${n})`;
      label = `${plain(texts[i] as string, max - suffix.length)}${suffix}`;
    }
    taken.add(label);
    return label;
  });
}

const whole = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const oneDecimal = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });
const count = (n: number) => escapeText(whole.format(n));

/** Evenly spread picks of at most `max` items, keeping the first and the last. */
function spread<T>(items: readonly T[], max: number): T[] {
  if (items.length <= max) return [...items];
  return Array.from({ length: max }, (_, i) => items[Math.round((i * (items.length - 1)) / (max - 1))] as T);
}

/** Axis labels in the event's zone, unique: the day, with the hour where a day has several points. */
function labels(times: readonly number[], zone: string): string[] {
  const day = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', timeZone: zone });
  const hour = new Intl.DateTimeFormat('en-US', {
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZone: zone,
  });
  const days = times.map((t) => day.format(t));
  const named = times.map((t, i) =>
    days.indexOf(days[i] as string) !== days.lastIndexOf(days[i] as string) ? hour.format(t) : (days[i] as string),
  );
  return chartLabels(named);
}

/**
 * Sold over time, with capacity and, past the last read, the forecast at the start: one line
 * "Sold, then forecast" (its last step is the projection, as the text beside it says) and one of
 * capacity; with a comparison, the similar events' band (their lowest, median and highest at the
 * same time before their start, in tickets of this capacity; at the start, what they ended at).
 * With fewer than three reads it says so instead of drawing a line through two dots.
 */
export function salesChartBlocks(input: {
  eventName: string;
  points: readonly SalesPoint[];
  capacity: number | undefined;
  startsAtMs: number;
  forecast: Forecast | undefined;
  zone: string;
  comparables?: Comparables | undefined;
}): Block[] {
  const { points } = input;
  if (points.length < MIN_CHART_POINTS)
    return [
      context(
        md`:chart_with_upwards_trend: ${plural(points.length, 'report')} read so far: a sales chart needs at least ${MIN_CHART_POINTS}.`,
      ),
    ];
  const withForecast = input.forecast?.kind === 'forecast' ? input.forecast : undefined;
  const shown = spread(points, CHART_LIMITS.categories - (withForecast ? 1 : 0));
  // The forecast's point is the start, named "Start Dec 14": no read's label begins with "Start".
  const categories = labels(
    shown.map((p) => p.at),
    input.zone,
  );
  if (withForecast)
    categories.push(
      plain(
        `Start ${new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', timeZone: input.zone }).format(input.startsAtMs)}`,
        CHART_LIMITS.label,
      ),
    );
  const values = [...shown.map((p) => p.sold), ...(withForecast ? [Math.round(withForecast.atStart.likely)] : [])];
  const series = [
    {
      name: withForecast ? 'Sold, then forecast' : 'Sold',
      data: categories.map((label, i) => ({ label, value: values[i] ?? 0 })),
    },
  ];
  const capacity = input.capacity ?? withForecast?.capacity;
  if (capacity !== undefined)
    series.push({ name: 'Capacity', data: categories.map((label) => ({ label, value: capacity })) });
  series.push(
    ...bandSeries(
      input.comparables,
      input.startsAtMs,
      [...shown.map((p) => p.at), ...(withForecast ? [input.startsAtMs] : [])],
      categories,
    ),
  );
  const chart: DataVisualizationBlock = {
    type: 'data_visualization',
    title: plain(`Tickets sold: ${input.eventName}`, CHART_LIMITS.title),
    chart: { type: 'line', series, axis_config: { categories, x_label: 'Time read', y_label: 'Tickets sold' } },
  };
  return [chart as unknown as Block];
}

/**
 * The similar events' band as three series over the chart's categories (taken at `times`), in
 * tickets of this event's capacity; none without a comparison, or where a category has no similar
 * event reaching back to it (a line with a gap would read as zero).
 */
function bandSeries(
  comparables: Comparables | undefined,
  startsAtMs: number,
  times: readonly number[],
  categories: readonly string[],
): DataVisualizationBlock['chart']['series'] {
  if (comparables?.kind !== 'compared') return [];
  const band = similarBand(comparables, startsAtMs, times);
  if (band.some((spread) => spread === undefined)) return [];
  const line = (name: string, pick: (spread: Spread) => number) => ({
    name,
    data: categories.map((label, i) => ({
      label,
      value: Math.round(pick(band[i] as Spread) * comparables.capacity),
    })),
  });
  return [
    line('Similar: lowest', (s) => s.low),
    line('Similar: median', (s) => s.median),
    line('Similar: highest', (s) => s.high),
  ];
}

/** Each promo code's redeemed against its quantity, as a bar chart; none when the report names no codes. */
export function promoChartBlocks(report: EventReport): Block[] {
  const rows = quantityRows(report).slice(0, CHART_LIMITS.categories);
  if (rows.length === 0) return [];
  const categories = chartLabels(rows.map((row) => row.label));
  const chart: DataVisualizationBlock = {
    type: 'data_visualization',
    title: 'Promo codes: redeemed of quantity',
    chart: {
      type: 'bar',
      series: [
        { name: 'Redeemed', data: rows.map((row, i) => ({ label: categories[i] as string, value: row.redeemed })) },
        { name: 'Quantity', data: rows.map((row, i) => ({ label: categories[i] as string, value: row.quantity })) },
      ],
      axis_config: { categories, x_label: 'Promo code', y_label: 'Redemptions' },
    },
  };
  return [chart as unknown as Block];
}

/** A table cell: plain text of at most `CHART_LIMITS.tableCell` characters. */
const cell = (text: string) => ({ type: 'raw_text' as const, text: plain(text, CHART_LIMITS.tableCell) });
type Cell = ReturnType<typeof cell>;

/**
 * A table of a header and `rows`, within Slack's limits: at most 99 rows under the header and
 * `CHART_LIMITS.tableText` characters in all; a note says how many rows were left for the full report.
 */
function tableBlocks(header: Cell[], rows: readonly Cell[][], what: string, align: ('left' | 'right')[]): Block[] {
  const size = (row: readonly Cell[]) => row.reduce((sum, c) => sum + c.text.length, 0);
  let budget = CHART_LIMITS.tableText - size(header);
  const kept: Cell[][] = [];
  for (const row of rows.slice(0, CHART_LIMITS.tableRows - 1)) {
    budget -= size(row);
    if (budget < 0) break;
    kept.push(row);
  }
  const blocks: Block[] = [
    {
      type: 'table' as const,
      column_settings: align.map((a) => ({ align: a })),
      rows: [header, ...kept],
    },
  ];
  if (kept.length < rows.length)
    blocks.push(context(md`...and ${plural(rows.length - kept.length, `more ${what}`)} in the full report.`));
  return blocks;
}

/** The promo codes as a table: code, redeemed, quantity, left (at most 99 codes under the header). */
export function promoTableBlocks(report: EventReport): Block[] {
  const rows = quantityRows(report);
  if (rows.length === 0) return [];
  const number = (n: number) => cell(whole.format(n));
  return tableBlocks(
    [cell('Promo code'), cell('Redeemed'), cell('Quantity'), cell('Left')],
    rows.map((row) => [cell(row.label), number(row.redeemed), number(row.quantity), number(row.left)]),
    'promo code',
    ['left', 'right', 'right', 'right'],
  );
}

/** The report's top-level figures as a table: figure and value (at most 99 under the header). */
export function figuresTableBlocks(report: EventReport): Block[] {
  const figures = topFigures(report);
  if (figures.length === 0) return [];
  const currency = reportCurrency(report);
  return tableBlocks(
    [cell('Figure'), cell('Value')],
    figures.map(([key, value]) => [cell(humanise(key)), cell(formatNumber(key, value, currency))]),
    'figure',
    ['left', 'right'],
  );
}

const perDayWords = (perDay: number) => md`${escapeText(oneDecimal.format(perDay))}/day`;

/** The pace in words: per day over the last week, else per hour over the last day; undefined when unknown. */
export function paceWords(forecast: Forecast): Mrkdwn | undefined {
  const { pace } = forecast;
  if (pace.perDayLastWeek !== undefined) return md`${perDayWords(pace.perDayLastWeek)} over the last week`;
  if (pace.perHourLastDay !== undefined)
    return md`${escapeText(oneDecimal.format(pace.perHourLastDay))}/hour over the last day`;
  return undefined;
}

/** "2-5 days before the event", from the earliest and latest projected sell-out ("80% likely" when calibrated). */
function daysBefore(startsAtMs: number, earliest: number, latest: number | undefined, likely: Mrkdwn): Mrkdwn {
  const most = Math.floor((startsAtMs - earliest) / DAY);
  if (latest === undefined) return md`${likely}up to ${plural(most, 'day')} before the event, or not before it at all`;
  const least = Math.floor((startsAtMs - latest) / DAY);
  if (most < 1) return md`in its final day`;
  return least === most
    ? md`${likely}${plural(most, 'day')} before the event`
    : md`${likely}${Math.max(0, least)}-${most} days before the event`;
}

/** The learned methods by name (`Forecast.basis`), in words. */
function basisWords(basis: string): Mrkdwn | undefined {
  if (basis.startsWith('pickup')) return md`pickup`;
  if (basis === 'recent-pace') return md`the recent pace`;
  if (basis === 'straight-line') return md`a straight line through the sales so far`;
  return undefined;
}

/** How the forecast was made, in words: always the method, what it learned from, and that a pace is rough. */
function methodWords(forecast: Extract<Forecast, { kind: 'forecast' }>): Mrkdwn {
  if (forecast.basis !== undefined) {
    const by = basisWords(forecast.basis);
    const tested = forecast.backtestedOn !== undefined ? md`, backtested on ${forecast.backtestedOn} of them` : md``;
    const events = forecast.unlike ? md`past events of other sizes or selling periods` : md`similar past events`;
    return md`${by ? md`by ${by}, ` : md``}learned from ${forecast.learnedFrom} ${events}${tested}`;
  }
  return forecast.method === 'booking-curve'
    ? md`from the sales curves of ${forecast.learnedFrom} similar past events`
    : md`a rough guess from the recent pace (fewer than 3 similar past events to learn a sales curve from)`;
}

/**
 * The forecast in one line, never one bare date: "Projected to sell out around Fri 4 Dec, 80% likely
 * 2-5 days before the event; 140/day over the last week (by pickup, learned from 5 similar past
 * events, backtested on 5 of them)". Only a range calibrated as an 80% interval says "80% likely".
 */
export function forecastWords(forecast: Forecast, startsAtMs: number): Mrkdwn {
  const pace = paceWords(forecast);
  if (forecast.kind === 'none')
    return pace
      ? md`${pace}. No forecast yet: ${escapeText(forecast.reason)}.`
      : md`No pace or forecast yet: ${escapeText(forecast.reason)}.`;
  const parts: Mrkdwn[] = [];
  // A range calibrated to hold the outcome 80% of the time says so; quartile ranges make no such claim.
  const calibrated = forecast.coverage === 0.8;
  if (forecast.sellOut) {
    const { earliest, likely, latest } = forecast.sellOut;
    const days = daysBefore(startsAtMs, earliest, latest, calibrated ? md`80% likely ` : md``);
    parts.push(md`Projected to sell out around ${readerDay(likely)}, ${days}`);
  } else {
    const { low, likely, high } = forecast.atStart;
    const of = forecast.capacity === undefined ? md`` : md` of ${count(forecast.capacity)}`;
    parts.push(
      calibrated
        ? md`Projected ${count(likely)}${of} sold by the start, 80% likely between ${count(low)} and ${count(high)}`
        : md`Projected ${count(likely)}${of} sold by the start (${count(low)}-${count(high)})`,
    );
  }
  if (pace) parts.push(pace);
  return md`${joinMrkdwn(parts, md`; `)} (${methodWords(forecast)}).`;
}

/** A report with its sales history and forecast: what a report message or a Chart reply shows. */
export interface SalesFigures {
  report: EventReport;
  insight:
    | {
        points: readonly SalesPoint[];
        capacity: number | undefined;
        startsAtMs: number;
        timezone: string;
        forecast: Forecast;
        /** Where it stands against similar finished events (none: not compared). */
        comparables?: Comparables | undefined;
      }
    | undefined;
}

/**
 * What a report message adds about sales: the pace and forecast in words, the sales chart (or why
 * there is none yet), and each promo code's redeemed against its quantity as a chart and a table
 * (a message holds one table: without promo codes, the report's figures instead).
 * Returns the blocks and the same in a line for the message's plain text.
 */
export function reportSalesBlocks(input: {
  eventName: string;
  /** The report and its sales insight, as the figures rule let them through. */
  figures: Shown<SalesFigures>;
}): { blocks: Block[]; text: Mrkdwn | undefined } {
  const { insight, report } = input.figures;
  const blocks: Block[] = [];
  let text: Mrkdwn | undefined;
  if (insight) {
    text = forecastWords(insight.forecast, insight.startsAtMs);
    blocks.push(context(md`:crystal_ball: ${text}`));
    blocks.push(
      ...salesChartBlocks({
        eventName: input.eventName,
        points: insight.points,
        capacity: insight.capacity,
        startsAtMs: insight.startsAtMs,
        forecast: insight.forecast,
        zone: insight.timezone,
        comparables: insight.comparables,
      }),
    );
    // Where it stands against similar events (their band is drawn in the sales chart above).
    const standing = insight.comparables ? comparablesWords(insight.comparables) : undefined;
    if (standing) {
      blocks.push(context(md`:bar_chart: ${standing}`));
      text = md`${text} ${standing}`;
    }
  }
  // Slack shows one table per message: the promo codes' where the report names any, else its figures'.
  const promoTable = promoTableBlocks(report);
  blocks.push(...promoChartBlocks(report), ...(promoTable.length > 0 ? promoTable : figuresTableBlocks(report)));
  return { blocks, text };
}

/** The watch card's Chart reply: the sales chart and forecast, the promo codes, and a text saying the same. */
export function watchChartMessage(input: Parameters<typeof reportSalesBlocks>[0]): SlackMessage {
  const sales = reportSalesBlocks(input);
  const name = clip(input.eventName, 150);
  const blocks: Block[] = [mrkdwnSection(md`:chart_with_upwards_trend: *Sales of ${name}*`), ...sales.blocks];
  if (blocks.length === 1) blocks.push(context(md`No sales history or promo codes to chart yet.`));
  const text = sales.text ? md`Sales of ${name}: ${sales.text}` : md`Sales of ${name}`;
  return { text: shorten(text, LIMITS.fallbackText), blocks: blocks.slice(0, LIMITS.messageBlocks) };
}
