import type { Shown, Withheld } from '../figures/may-show-figures.js';
import { fieldKey, type ReportRow, rowLists, topFigures } from '../reports/report-figures.js';
import type { ReportStatus } from '../reports/report-status.js';
import type { RateLimitSpec } from '../ticketing/rate-limit.js';
import type { EventReport } from '../ticketing/schemas.js';
import {
  type Block,
  context,
  header,
  LIMITS,
  mrkdwnField,
  mrkdwnSection,
  plainMessage,
  type SlackMessage,
  warningMessage,
} from './block-kit.js';
import { shortDayWords } from './day-words.js';
import { describeLimit } from './limit-wording.js';
import { clip, code, type Mrkdwn, md, readerIsoInstant, shorten } from './mrkdwn.js';
import { withheldWords } from './withheld-words.js';

const LABEL_KEYS = ['name', 'label', 'code', 'title', 'date', 'day', 'category', 'id'];
const MAX_ROWS = 10;
const MAX_LISTS = 4;
const BAR_WIDTH = 16;

/** `ticketsSold` → `Tickets sold`. */
export function humanise(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const numberFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });

/** The report's currency code (`EUR`), when it names one. */
export const reportCurrency = (report: EventReport): string | undefined =>
  typeof report.currency === 'string' && report.currency.length > 0 ? report.currency.slice(0, 10) : undefined;

/** Figures as one section's fields (`*Tickets sold*\n520`), each side clipped to `width`; none for no figures. */
export function figureFields(
  figures: [string, number][],
  currency: string | undefined,
  width = 100,
): Block | undefined {
  if (figures.length === 0) return undefined;
  return {
    type: 'section',
    fields: figures
      .slice(0, LIMITS.fields)
      .map(([key, value]) =>
        mrkdwnField(md`*${clip(humanise(key), width)}*\n${clip(formatNumber(key, value, currency), width)}`),
      ),
  };
}

const moneyFormats = new Map<string, Intl.NumberFormat>();

/**
 * Money as every surface writes it (reports, cards, alerts, the flexpane): the amount with its
 * currency's minor units (`12,746.40 USD`, `10,593 JPY`, two for a code Intl does not know), then the code.
 */
export function formatMoney(value: number, currency: string): string {
  let format = moneyFormats.get(currency);
  if (!format) {
    let digits = 2;
    try {
      digits =
        new Intl.NumberFormat('en-US', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
    } catch {
      // Not an ISO 4217 code Intl knows: cents, as most currencies have.
    }
    format = new Intl.NumberFormat('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
    moneyFormats.set(currency, format);
  }
  return `${format.format(value)} ${currency}`;
}

/** A figure as shown: money (by its name) with the report's currency after it (`formatMoney`). */
export function formatNumber(key: string, value: number, currency: string | undefined): string {
  const money = /revenue|amount|price|total|gross|net|sales$/i.test(key) && currency;
  return money ? formatMoney(value, money) : numberFormat.format(value);
}

type Row = ReportRow;

/** A column name that says sold (not unsold or sold out), or redeemed: what a table of sales counts. */
const countsSales = (column: string) => {
  const k = fieldKey(column);
  return (k.includes('sold') && !k.includes('unsold') && !k.includes('soldout')) || k === 'redeemed';
};

/**
 * What a table's bars measure: what it is about, never merely its first numeric column (a price).
 * Tickets sold (or a code's redemptions), else the figure the table is named after
 * (`revenueByMonth` → `revenue`); none of those: no bars.
 */
function barColumn(tableKey: string, numericKeys: readonly string[]): string | undefined {
  const sold = numericKeys.find(countsSales);
  if (sold) return sold;
  const table = fieldKey(tableKey);
  const named = numericKeys.filter((k) => fieldKey(k).length > 0 && table.startsWith(fieldKey(k)));
  return named.sort((a, b) => fieldKey(b).length - fieldKey(a).length)[0];
}

/** A list of records as a short monospace table, with bars for what the table measures (`barColumn`). */
function table(key: string, rows: Row[], currency: string | undefined): Block[] {
  const sample = rows[0] as Row;
  const labelKey = LABEL_KEYS.find((k) => typeof sample[k] === 'string');
  const allNumeric = Object.keys(sample).filter((k) => typeof sample[k] === 'number');
  const barKey = barColumn(key, allNumeric);
  // The measured column is always among the three shown.
  const numericKeys = barKey
    ? [...allNumeric.filter((k) => k !== barKey).slice(0, 2), barKey].sort(
        (a, b) => allNumeric.indexOf(a) - allNumeric.indexOf(b),
      )
    : allNumeric.slice(0, 3);
  if (!labelKey || numericKeys.length === 0) return [];
  const shown = rows.slice(0, MAX_ROWS);
  const measured = (row: Row) => (barKey && typeof row[barKey] === 'number' ? Math.max(0, row[barKey] as number) : 0);
  const max = Math.max(...shown.map(measured), 1);
  const labels = shown.map((row) => shortDayWords(String(row[labelKey] ?? '')).slice(0, 24));
  const labelWidth = Math.max(...labels.map((l) => l.length), humanise(labelKey).length);
  const cells = shown.map((row) =>
    numericKeys.map((k) => (typeof row[k] === 'number' ? formatNumber(k, row[k] as number, currency) : '')),
  );
  const widths = numericKeys.map((k, i) => Math.max(humanise(k).length, ...cells.map((c) => (c[i] ?? '').length)));
  const head = [
    humanise(labelKey).padEnd(labelWidth),
    ...numericKeys.map((k, i) => humanise(k).padStart(widths[i] ?? 0)),
  ].join('  ');
  const lines = shown.map((row, r) => {
    const bar = barKey ? '█'.repeat(Math.round((measured(row) / max) * BAR_WIDTH)) : '';
    const numbers = (cells[r] ?? []).map((cell, i) => cell.padStart(widths[i] ?? 0));
    return [(labels[r] ?? '').padEnd(labelWidth), ...numbers, bar].join('  ').trimEnd();
  });
  const more = rows.length - shown.length;
  const body = clip([head, ...lines].join('\n').replaceAll('`', "'"), LIMITS.sectionText - 200);
  const measures = barKey ? md` (bars: ${clip(humanise(barKey).toLowerCase(), 60)})` : md``;
  const blocks: Block[] = [mrkdwnSection(md`*${clip(humanise(key), 100)}*${measures}\n\`\`\`${body}\`\`\``)];
  if (more > 0) blocks.push(context(md`...and ${more} more`));
  return blocks;
}

/** When the report was generated, in each reader's zone; text that is no time stays as given. */
function generatedWords(generatedAt: string): Mrkdwn {
  return readerIsoInstant(generatedAt, 40);
}

export interface ReportMessageOptions {
  eventId: string;
  eventName?: string | undefined;
  /** Said under the report when the full JSON could not be attached. */
  attachmentNote?: Mrkdwn | undefined;
  /** The event is cancelled: said first, and in the notification. */
  cancelled?: boolean | undefined;
}

/**
 * A report whose shape the spec does not give: top-level numbers become headline fields, lists of
 * records become short tables with bars; anything else is left to the attached file.
 */
export function reportMessage(report: Shown<EventReport>, options: ReportMessageOptions): SlackMessage {
  const currency = reportCurrency(report);
  const name = options.eventName ?? (typeof report.eventName === 'string' ? report.eventName : undefined);
  const title = md`Report: ${clip(name ?? options.eventId, 200)}${options.cancelled ? md` (cancelled)` : md``}`;
  const blocks: Block[] = [header(title)];
  if (options.cancelled)
    blocks.push(mrkdwnSection(md`:no_entry: *This event is cancelled.* These are the figures its report gives now.`));
  const numbers = topFigures(report);
  const fields = figureFields(numbers, currency);
  if (fields) {
    blocks.push(fields);
    if (numbers.length > LIMITS.fields)
      blocks.push(context(md`...and ${numbers.length - LIMITS.fields} more figures in the file`));
  }
  const lists = rowLists(report);
  for (const [key, rows] of lists.slice(0, MAX_LISTS)) blocks.push(...table(key, rows, currency));
  if (lists.length > MAX_LISTS) blocks.push(context(md`...and ${lists.length - MAX_LISTS} more lists in the file`));
  if (numbers.length === 0 && lists.length === 0)
    blocks.push(mrkdwnSection(md`The report has no figures to show here.`));
  const generated =
    typeof report.generatedAt === 'string' ? md` · generated ${generatedWords(report.generatedAt)}` : md``;
  blocks.push(context(md`${code(options.eventId)}${generated}`));
  if (options.attachmentNote) blocks.push(context(options.attachmentNote));
  const headline = clip(
    numbers
      .slice(0, 3)
      .map(([key, value]) => `${humanise(key)}: ${formatNumber(key, value, currency)}`)
      .join(', '),
    1000,
  );
  return {
    text: shorten(headline ? md`${title} (${headline})` : title, LIMITS.fallbackText),
    blocks: blocks.slice(0, LIMITS.messageBlocks),
  };
}

/** What the last states need besides the label: the event's id, and words for what went wrong. */
export interface ReportStatusContext {
  eventId: string;
  /** The one place an error becomes words (`slack/replies/user-message.ts`), passed in: render imports no Slack. */
  describeError: (error: unknown) => Mrkdwn;
  /** Said under the report when the full JSON could not be attached. */
  attachmentNote?: Mrkdwn | undefined;
  /** The event is cancelled: the report says so. */
  cancelled?: boolean | undefined;
}

type Progress = Extract<ReportStatus, { state: 'queued' | 'fetching' }>;

/**
 * A report's status once the figures rule has seen it: its report as it let it through, or why
 * it held it back (the person who asked is told, privately).
 */
export type ShownReportStatus =
  | Exclude<ReportStatus, { state: 'report' }>
  | { state: 'report'; report: Shown<EventReport> }
  | { state: 'withheld'; withheld: Withheld };

/** Why a report Redis lost will not come, and what to do. */
const lostReason = (eventId: string) =>
  md`it was not fetched: Redis lost its place in the queue (emptied or evicted). Ask again with ${code(`/events report ${eventId}`)}.`;

/**
 * Every state of a report's one message, rendered here once: its place in the queue while it
 * waits, "fetching", then the report, or why it will not come (the last states need `about`).
 */
export function reportProgressMessage(progress: Progress, eventLabel: string, reportLimit: RateLimitSpec): SlackMessage;
export function reportProgressMessage(
  status: ShownReportStatus,
  eventLabel: string,
  reportLimit: RateLimitSpec,
  about: ReportStatusContext,
): SlackMessage;
export function reportProgressMessage(
  status: ShownReportStatus,
  eventLabel: string,
  reportLimit: RateLimitSpec,
  about?: ReportStatusContext,
): SlackMessage {
  if (status.state === 'queued' || status.state === 'fetching') return progressMessage(status, eventLabel, reportLimit);
  if (!about) throw new Error(`A report's ${status.state} message needs its context`);
  switch (status.state) {
    case 'report':
      return reportMessage(status.report, {
        eventId: about.eventId,
        attachmentNote: about.attachmentNote,
        cancelled: about.cancelled,
      });
    case 'withheld':
      return reportFailedMessage(eventLabel, withheldWords(status.withheld));
    case 'failed':
    case 'expired':
      return reportFailedMessage(eventLabel, about.describeError(status.error));
    case 'lost':
      return reportFailedMessage(eventLabel, lostReason(about.eventId));
    case 'abandoned':
      return reportAbandonedMessage(about.eventId);
  }
}

/** The message that stands in for a report while it waits in the queue. */
function progressMessage(progress: Progress, eventLabel: string, reportLimit: RateLimitSpec): SlackMessage {
  const label = clip(eventLabel, 200);
  if (progress.state === 'queued') {
    const seconds = Math.max(1, Math.ceil(progress.estimatedWaitMs / 1000));
    const status = md`queued: position ${progress.position}, about ${seconds} s`;
    return {
      text: md`Report for ${label} ${status}`,
      blocks: [
        mrkdwnSection(md`:hourglass_flowing_sand: Report for *${label}* ${status}.`),
        context(md`The report API allows ${describeLimit(reportLimit)}; this message updates as the queue moves.`),
      ],
    };
  }
  return {
    text: md`Fetching the report for ${label}...`,
    blocks: [mrkdwnSection(md`:hourglass_flowing_sand: Fetching the report for *${label}*...`)],
  };
}

/** The report could not be fetched; `reason` is the user-facing sentence. */
export function reportFailedMessage(eventLabel: string, reason: Mrkdwn): SlackMessage {
  return warningMessage(md`Report for ${code(eventLabel)}: ${reason}`);
}

/** A queued report the bot gave up on because it is shutting down: never leave "queued" behind. */
export function reportAbandonedMessage(eventLabel: string): SlackMessage {
  return warningMessage(
    md`The report for ${code(eventLabel)} was not fetched: eventops restarted while it was queued. Ask again with \`/events report ${clip(eventLabel, 100)}\`.`,
  );
}

/**
 * Said before a report is fetched for something the person asked (a promo code by its code, what
 * a watch can check): they wait their turn within the report limit. `purpose` completes "to ...".
 */
export function fetchingReportWords(purpose: Mrkdwn, reportLimit: RateLimitSpec): Mrkdwn {
  return md`:hourglass_flowing_sand: Fetching the event's report ${purpose} (the report API allows ${describeLimit(reportLimit)}; you may wait your turn)...`;
}

/** The same as a message of its own. */
export function fetchingReportMessage(purpose: Mrkdwn, reportLimit: RateLimitSpec): SlackMessage {
  return plainMessage(fetchingReportWords(purpose, reportLimit));
}
