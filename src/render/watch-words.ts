import type { Shown } from '../figures/may-show-figures.js';
import { quantityRows, soldOfCapacity, topFigures } from '../reports/report-figures.js';
import type { EventReport } from '../ticketing/schemas.js';
import { type ConditionState, crossedBeforeWatch, type EventCheck, type Watch } from '../watches/watch.js';
import { describeCondition, type WatchCondition } from '../watches/watch-condition.js';
import { type Block, LIMITS, warning } from './block-kit.js';
import {
  clip,
  clipName,
  code,
  escapeText,
  joinMrkdwn,
  type Mrkdwn,
  md,
  mentionUser,
  readerDay,
  readerInstant,
} from './mrkdwn.js';
import { plural } from './plural.js';
import { figureFields, formatNumber, reportCurrency } from './report-blocks.js';

/**
 * What the watch messages share (issue 18): one live card per event and conversation, edited at
 * each check; alerts and the final summary as replies in its thread. Times are Slack date tokens,
 * so each reader sees their own zone (a watch does not carry the event's zone).
 */

export const MAX_FIGURES = 6;
export const MAX_SUMMARY_FIGURES = LIMITS.fields;
const MAX_PROMOS = 8;
export const MAX_CONDITION_LINES = 10;
export const MAX_LIST_CONDITIONS = 5;
const BAR_WIDTH = 10;
/** Room kept in a section for the closing "...and N more" line. */
const SECTION_BUDGET = LIMITS.sectionText - 200;

const numberFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
const oneDecimal = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });

export const num = (value: number) => escapeText(numberFormat.format(value));
export const decimal = (value: number) => escapeText(oneDecimal.format(value));

/** A figure as the report shows it (money with its currency). */
export const figureValue = (key: string, value: number, currency: string | undefined): Mrkdwn =>
  escapeText(formatNumber(key, value, currency));

/** `<@U123>` for a Slack user id we hold; anything else is left out rather than shown. */
export function mention(userId: string | undefined): Mrkdwn | undefined {
  return userId !== undefined && /^[UW][A-Z0-9]{2,20}$/.test(userId) ? mentionUser(userId) : undefined;
}

export const eventName = (watch: Watch, max: number) =>
  clipName(watch.eventName.trim() ? watch.eventName : `Event ${watch.eventId}`, max);

export const nextCheckWords = (nextCheckAt: number, now: number) =>
  nextCheckAt <= now ? md`next check due now` : md`next check about ${readerInstant(nextCheckAt)}`;

/** `█████░░░░░ 52% sold (520 of 1,000)`. */
export function soldBar(report: EventReport): Mrkdwn | undefined {
  const words = soldWords(report);
  return words && md`${words.bar} ${words.share}`;
}

/**
 * Sold of capacity in words: the bar (full only when nothing is left), `52% sold (520 of 1,000)`
 * and `520 of 1,000 sold`. The share is rounded to a tenth as conditions judge it, and stays under
 * 100% until the event is sold out.
 */
export function soldWords(report: EventReport): { bar: Mrkdwn; share: Mrkdwn; counts: Mrkdwn } | undefined {
  const pair = soldOfCapacity(report);
  if (!pair) return undefined;
  const soldOut = pair.sold >= pair.capacity;
  const exact = (Math.max(0, pair.sold) / pair.capacity) * 100;
  const share = soldOut ? Math.round(exact * 10) / 10 : Math.min(99.9, Math.round(exact * 10) / 10);
  const filled = soldOut ? BAR_WIDTH : Math.min(BAR_WIDTH - 1, Math.round(exact / BAR_WIDTH));
  const counts = md`${num(pair.sold)} of ${num(pair.capacity)}`;
  return {
    bar: escapeText('█'.repeat(filled) + '░'.repeat(BAR_WIDTH - filled)),
    share: md`${decimal(share)}% sold (${counts})`,
    counts: md`${counts} sold`,
  };
}

/** The report's first figures as fields: `*Tickets sold*\n520`. */
export function reportFields(report: EventReport, max: number): Block | undefined {
  return figureFields(topFigures(report).slice(0, max), reportCurrency(report));
}

/**
 * Lines that fit one section: at most `maxLines` and the section's length, the rest named by
 * `more(n)` on a last line.
 */
export function fitLines(lines: readonly Mrkdwn[], maxLines: number, more: (left: number) => Mrkdwn): Mrkdwn[] {
  const kept: Mrkdwn[] = [];
  let used = 0;
  for (const line of lines) {
    if (kept.length === maxLines || used + line.length + 1 > SECTION_BUDGET) break;
    kept.push(line);
    used += line.length + 1;
  }
  if (kept.length < lines.length) kept.push(more(lines.length - kept.length));
  return kept;
}

/** `• \`EARLYBIRD\` 12 of 100 left` for each promo code the report lists. */
export function promoLines(report: EventReport, verb: 'left' | 'used'): Mrkdwn[] {
  const rows = quantityRows(report);
  const lines = rows.map((row) =>
    verb === 'left'
      ? md`• ${code(row.label, 60)} ${num(row.left)} of ${num(row.quantity)} left`
      : md`• ${code(row.label, 60)} ${num(row.redeemed)} of ${num(row.quantity)} used (${num(row.left)} left)`,
  );
  return fitLines(lines, MAX_PROMOS, (left) => md`...and ${plural(left, 'more promo code')}`);
}

/** A condition's last figure in words, as `judge` measures it. */
function valueWords(condition: WatchCondition, value: number, currency: string | undefined): Mrkdwn {
  switch (condition.kind) {
    case 'figure':
      return figureValue(condition.field, value, currency);
    case 'sold-share':
      return md`${num(value)}% sold`;
    case 'left':
      return condition.unit === 'percent' ? md`${num(value)}% left` : md`${num(value)} left`;
    case 'sold-since':
      return md`${ticketsSold(value)} between the last two checks`;
    case 'stall':
      return md`last sale ${decimal(value)} h ago`;
    case 'sold-out':
      return md`${num(value)} left`;
    case 'sells-out':
      return value > 0
        ? md`projected to sell out around ${readerDay(value)}`
        : md`not projected to sell out before the start`;
    case 'pace-below':
      return md`${decimal(value)} sold/day`;
    case 'pace-halves':
      return md`the last day's pace is ${num(Math.round(value * 100))}% of the week before's`;
    case 'behind-similar':
      return md`${num(value)}% sold`;
    case 'flatline':
      // 100: no pause to judge (a sale at the last check, or no similar events reaching back to it).
      return value >= 100
        ? md`no pause to judge`
        : md`a pause this long: about ${num(value)}% likely at similar events' pace`;
  }
}

/** `no tickets sold`, `1 ticket sold`, `57 tickets sold`. */
export function ticketsSold(count: number): Mrkdwn {
  if (count === 0) return md`no tickets sold`;
  return count === 1 ? md`1 ticket sold` : md`${num(count)} tickets sold`;
}

/**
 * Where a condition stands: watching, crossed, or why it cannot be checked, with its last figure.
 * Each is derived from the figures (a crossing says where sales stand, an unanswerable condition
 * names the report's promo codes), so it takes the check the figures rule let through.
 */
function conditionStatus(state: ConditionState, check: Shown<EventCheck>): Mrkdwn {
  if (state.pending) {
    // A forecast condition set before its event's history allows it: judged from about then on.
    const what = state.condition.kind === 'sells-out' ? md`forecast` : md`pace`;
    const { from, after } = state.pending;
    return md`:hourglass_flowing_sand: not judged yet: ${what} from about ${readerInstant(from)}, after ${clip(after, 60)}`;
  }
  if (state.unknown !== undefined) return warning(md`cannot be checked: ${clip(state.unknown, 200)}`);
  // Only a figure read in the check the card shows: one from an older check would contradict it.
  const now =
    state.lastValue === undefined || (state.valueAt !== undefined && state.valueAt !== check.checkedAt)
      ? md``
      : md` · now ${valueWords(state.condition, state.lastValue, reportCurrency(check.report))}`;
  if (crossedBeforeWatch(state)) return md`already crossed when the watch was set${now}`;
  if (!state.armed) {
    const times = state.crossings > 1 ? md` (${state.crossings} times)` : md``;
    return md`:white_check_mark: crossed${times}${now}`;
  }
  const before = state.crossings > 0 ? md` (crossed ${plural(state.crossings, 'time')} before)` : md``;
  return md`watching${before}${now}`;
}

/** A condition as asked for, and where it stands only beside a check shown. */
function conditionLine(watch: Watch, state: ConditionState, check: Shown<EventCheck> | undefined): Mrkdwn {
  const by = state.addedBy !== watch.setBy ? mention(state.addedBy) : undefined;
  const added = by ? md` · added by ${by}` : md``;
  const label = code(describeCondition(state.condition), 100);
  return check ? md`• ${label}: ${conditionStatus(state, check)}${added}` : md`• ${label}${added}`;
}

/**
 * Each condition, within `maxLines`; where each stands (watching, crossed, how often, why it
 * cannot be checked) and its last figure only beside a check shown (`check` undefined: none yet,
 * or held back, and then nothing derived from the figures is said either).
 */
export function conditionLines(watch: Watch, check: Shown<EventCheck> | undefined, maxLines: number): Mrkdwn {
  if (watch.conditions.length === 0) return md`No conditions: the figures are kept up to date.`;
  const lines = fitLines(
    watch.conditions.map((state) => conditionLine(watch, state, check)),
    maxLines,
    (left) => md`...and ${plural(left, 'more condition')}`,
  );
  return joinMrkdwn(lines);
}

/** How many alerts each condition gave (crossings say where sales went): only beside a check shown. */
export function crossingCounts(watch: Watch, _check: Shown<EventCheck>): { total: number; lines: Mrkdwn[] } {
  const fired = watch.conditions.filter((state) => state.crossings > 0);
  return {
    total: fired.reduce((sum, state) => sum + state.crossings, 0),
    lines: fitLines(
      fired.map((state) => md`• ${code(describeCondition(state.condition), 100)} ×${state.crossings}`),
      MAX_CONDITION_LINES,
      (left) => md`...and ${plural(left, 'more condition')}`,
    ),
  };
}

export const resumeHint = (watch: Watch) => md`set it again with ${code(`/events watch ${watch.eventId}`, 120)}`;
