import type { SalesDigestEntry } from '../forecast/sales-digest.js';
import { type Block, context, header, LIMITS, mrkdwnSection, type SlackMessage } from './block-kit.js';
import { comparablesWords } from './comparables-words.js';
import { clip, escapeText, joinMrkdwn, type Mrkdwn, md, readerInstant, shorten } from './mrkdwn.js';
import { plural } from './plural.js';
import { CHART_LIMITS, chartLabels, type DataVisualizationBlock, forecastWords } from './sales-blocks.js';

/** Most events one sales digest lists (each a section; the rest are counted). */
const MAX_ENTRIES = 20;
const whole = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const count = (n: number) => escapeText(whole.format(n));
const oneDecimal = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });

export interface SalesDigestInput {
  entries: readonly SalesDigestEntry[];
  cadence: 'daily' | 'weekly';
  /** The previous digest (or a day or week back on the first). */
  since: number;
  now: number;
}

/** How the forecast moved, in words; undefined when it did not move noticeably (or cannot be told). */
function movedWords(entry: SalesDigestEntry): Mrkdwn | undefined {
  const moved = entry.moved;
  if (!moved) return undefined;
  if ('days' in moved) {
    if (Math.abs(moved.days) < 0.5) return undefined;
    const days = plural(Math.round(Math.abs(moved.days) * 10) / 10, 'day');
    return moved.days > 0 ? md`sell-out now ${days} sooner` : md`sell-out now ${days} later`;
  }
  if (Math.abs(moved.share) < 0.01) return undefined;
  const points = escapeText(oneDecimal.format(Math.abs(moved.share) * 100));
  return moved.share > 0
    ? md`projected sales up ${points}% of capacity`
    : md`projected sales down ${points}% of capacity`;
}

function entryLine(entry: SalesDigestEntry): Mrkdwn {
  const name = clip(entry.eventName, 150);
  const since =
    entry.soldSince === undefined ? md`no figures from the previous digest` : md`+${count(entry.soldSince)} sold`;
  const total = entry.sold === undefined ? md`` : md` (${count(entry.sold)} in all)`;
  const moved = movedWords(entry);
  const lines = [md`*${name}*: ${since}${total}`, forecastWords(entry.forecast, entry.startsAtMs)];
  const standing = entry.comparables ? comparablesWords(entry.comparables) : undefined;
  if (standing) lines.push(standing);
  if (moved) lines.push(md`_${moved}_`);
  return joinMrkdwn(lines);
}

/** One chart: each event's tickets sold since the previous digest. */
function soldSinceChart(entries: readonly SalesDigestEntry[]): Block[] {
  const shown = entries.filter((e) => e.soldSince !== undefined).slice(0, CHART_LIMITS.categories);
  if (shown.length === 0) return [];
  const categories = chartLabels(shown.map((e) => e.eventName.trim() || e.eventId));
  const chart: DataVisualizationBlock = {
    type: 'data_visualization',
    title: 'Tickets sold since the last digest',
    chart: {
      type: 'bar',
      series: [
        {
          name: 'Sold since',
          data: shown.map((e, i) => ({ label: categories[i] as string, value: e.soldSince ?? 0 })),
        },
      ],
      axis_config: { categories, x_label: 'Event', y_label: 'Tickets sold' },
    },
  };
  return [chart as unknown as Block];
}

/**
 * The sales digest: each watched event's sales since the previous digest, its pace and forecast,
 * the events whose forecast moved most first, and one chart. Its `text` says the same in short.
 */
export function salesDigestMessage(input: SalesDigestInput): SlackMessage {
  const { entries } = input;
  const title = input.cadence === 'weekly' ? md`Weekly sales digest` : md`Daily sales digest`;
  const sinceWords = readerInstant(input.since);
  if (entries.length === 0) {
    const text = md`${title}: no watched event to report on. Watch an event (\`/events watch\`) and its sales show here.`;
    return { text, blocks: [mrkdwnSection(text)] };
  }
  const blocks: Block[] = [
    header(title),
    context(md`Since ${sinceWords}, from the figures already read (no report was fetched for this digest).`),
  ];
  const mostMoved = entries.map((entry) => ({ entry, words: movedWords(entry) })).find((e) => e.words !== undefined);
  if (mostMoved?.words)
    blocks.push(
      mrkdwnSection(md`:mag: Forecast moved most: *${clip(mostMoved.entry.eventName, 150)}*, ${mostMoved.words}.`),
    );
  for (const entry of entries.slice(0, MAX_ENTRIES)) blocks.push(mrkdwnSection(entryLine(entry)));
  if (entries.length > MAX_ENTRIES)
    blocks.push(context(md`...and ${plural(entries.length - MAX_ENTRIES, 'more watched event')}.`));
  blocks.push(...soldSinceChart(entries));
  const totalSince = entries.reduce((sum, e) => sum + (e.soldSince ?? 0), 0);
  const text = md`${title}: ${count(totalSince)} tickets sold since ${sinceWords} across ${plural(entries.length, 'watched event')}.`;
  return { text: shorten(text, LIMITS.fallbackText), blocks: blocks.slice(0, LIMITS.messageBlocks) };
}
