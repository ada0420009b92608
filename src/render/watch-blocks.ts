import type { Shown, Withheld } from '../figures/may-show-figures.js';
import type { Forecast } from '../forecast/forecast.js';
import { findQuantityRow, quantityRows, soldOfCapacity, topFigures } from '../reports/report-figures.js';
import type { EventReport } from '../ticketing/schemas.js';
import { parsePlainDate } from '../time/zoned.js';
import type { SetWatchOutcome } from '../watches/set-watch.js';
import { type ConditionState, crossedBeforeWatch, type EventCheck, type Watch } from '../watches/watch.js';
import { describeCondition, type WatchCondition } from '../watches/watch-condition.js';
import { FIGURES_PAUSE } from '../watches/watch-figures.js';
import {
  type Block,
  context,
  header,
  LIMITS,
  mrkdwnSection,
  plainMessage,
  type SlackMessage,
  warning,
  warningMessage,
} from './block-kit.js';
import { everyWords } from './every-words.js';
import {
  channelLink,
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
  shorten,
} from './mrkdwn.js';
import { plural } from './plural.js';
import { figureFields, formatNumber, humanise, reportCurrency } from './report-blocks.js';
import { forecastWords } from './sales-blocks.js';

/**
 * Watches (issue 18): one live card per event and conversation, edited at each check; alerts and
 * the final summary as replies in its thread. Times are Slack date tokens, so each reader sees
 * their own zone (a watch does not carry the event's zone).
 */

const MAX_FIGURES = 6;
const MAX_SUMMARY_FIGURES = LIMITS.fields;
const MAX_PROMOS = 8;
const MAX_CONDITION_LINES = 10;
const MAX_LIST_CONDITIONS = 5;
const BAR_WIDTH = 10;
/** Room kept in a section for the closing "...and N more" line. */
const SECTION_BUDGET = LIMITS.sectionText - 200;

const WATCH_SYNTAX = md`/events watch <event id or name> [conditions]`;

const numberFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
const oneDecimal = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });

const num = (value: number) => escapeText(numberFormat.format(value));
const decimal = (value: number) => escapeText(oneDecimal.format(value));

/** A figure as the report shows it (money with its currency). */
const figureValue = (key: string, value: number, currency: string | undefined): Mrkdwn =>
  escapeText(formatNumber(key, value, currency));

/** `<@U123>` for a Slack user id we hold; anything else is left out rather than shown. */
function mention(userId: string | undefined): Mrkdwn | undefined {
  return userId !== undefined && /^[UW][A-Z0-9]{2,20}$/.test(userId) ? mentionUser(userId) : undefined;
}

const plainDay = new Intl.DateTimeFormat('en-US', {
  weekday: 'short',
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  timeZone: 'UTC',
});

/**
 * When the watched event ends: the plain date of an all-day event (the same day for every reader,
 * never a time in their zone), else the instant in the reader's zone.
 */
function endWords(watch: Watch): Mrkdwn | undefined {
  const day = watch.endsOn ? parsePlainDate(watch.endsOn) : undefined;
  if (day) return md`on ${escapeText(plainDay.format(Date.UTC(day.year, day.month - 1, day.day)))}`;
  return watch.endsAtMs !== undefined ? readerInstant(watch.endsAtMs) : undefined;
}

const eventName = (watch: Watch, max: number) =>
  clipName(watch.eventName.trim() ? watch.eventName : `Event ${watch.eventId}`, max);

const nextCheckWords = (nextCheckAt: number, now: number) =>
  nextCheckAt <= now ? md`next check due now` : md`next check about ${readerInstant(nextCheckAt)}`;

/** `█████░░░░░ 52% sold (520 of 1,000)`. */
function soldBar(report: EventReport): Mrkdwn | undefined {
  const words = soldWords(report);
  return words && md`${words.bar} ${words.share}`;
}

/**
 * Sold of capacity in words: the bar (full only when nothing is left), `52% sold (520 of 1,000)`
 * and `520 of 1,000 sold`. The share is rounded to a tenth as conditions judge it, and stays under
 * 100% until the event is sold out.
 */
function soldWords(report: EventReport): { bar: Mrkdwn; share: Mrkdwn; counts: Mrkdwn } | undefined {
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
function reportFields(report: EventReport, max: number): Block | undefined {
  return figureFields(topFigures(report).slice(0, max), reportCurrency(report));
}

/**
 * Lines that fit one section: at most `maxLines` and the section's length, the rest named by
 * `more(n)` on a last line.
 */
function fitLines(lines: readonly Mrkdwn[], maxLines: number, more: (left: number) => Mrkdwn): Mrkdwn[] {
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
function promoLines(report: EventReport, verb: 'left' | 'used'): Mrkdwn[] {
  const rows = quantityRows(report);
  const lines = rows.map((row) =>
    verb === 'left'
      ? md`• ${code(row.label, 60)} ${num(row.left)} of ${num(row.quantity)} left`
      : md`• ${code(row.label, 60)} ${num(row.redeemed)} of ${num(row.quantity)} used (${num(row.left)} left)`,
  );
  return fitLines(lines, MAX_PROMOS, (left) => md`...and ${left} more promo code(s)`);
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
  }
}

/** `no tickets sold`, `1 ticket sold`, `57 tickets sold`. */
function ticketsSold(count: number): Mrkdwn {
  if (count === 0) return md`no tickets sold`;
  return count === 1 ? md`1 ticket sold` : md`${num(count)} tickets sold`;
}

/**
 * Where a condition stands: watching, crossed, or why it cannot be checked; its last figure only
 * with the figures shown (`figures` undefined: held back).
 */
function conditionStatus(state: ConditionState, figures: { currency: string | undefined } | undefined): Mrkdwn {
  if (state.pending) {
    // A forecast condition set before its event's history allows it: judged from about then on.
    const what = state.condition.kind === 'sells-out' ? md`forecast` : md`pace`;
    const { from, after } = state.pending;
    return md`:hourglass_flowing_sand: not judged yet: ${what} from about ${readerInstant(from)}, after ${clip(after, 60)}`;
  }
  if (state.unknown !== undefined) return warning(md`cannot be checked: ${clip(state.unknown, 200)}`);
  const now =
    state.lastValue === undefined || !figures
      ? md``
      : md` · now ${valueWords(state.condition, state.lastValue, figures.currency)}`;
  if (crossedBeforeWatch(state)) return md`already crossed when the watch was set${now}`;
  if (!state.armed) {
    const times = state.crossings > 1 ? md` (${state.crossings} times)` : md``;
    return md`:white_check_mark: crossed${times}${now}`;
  }
  const before = state.crossings > 0 ? md` (crossed ${state.crossings} time(s) before)` : md``;
  return md`watching${before}${now}`;
}

function conditionLine(
  watch: Watch,
  state: ConditionState,
  figures: { currency: string | undefined } | undefined,
): Mrkdwn {
  const by = state.addedBy !== watch.setBy ? mention(state.addedBy) : undefined;
  const added = by ? md` · added by ${by}` : md``;
  return md`• ${code(describeCondition(state.condition), 100)}: ${conditionStatus(state, figures)}${added}`;
}

/** Each condition with its state, within `maxLines`; their last figures only beside a check shown. */
function conditionLines(watch: Watch, check: Shown<EventCheck> | undefined, maxLines: number): Mrkdwn {
  if (watch.conditions.length === 0) return md`No conditions: the figures are kept up to date.`;
  const figures = check ? { currency: reportCurrency(check.report) } : undefined;
  const lines = fitLines(
    watch.conditions.map((state) => conditionLine(watch, state, figures)),
    maxLines,
    (left) => md`...and ${left} more condition(s)`,
  );
  return joinMrkdwn(lines);
}

type CardState = 'active' | 'paused' | 'ended' | 'unlisted' | 'unwatched';

export interface WatchCardInput {
  watch: Watch;
  /** The event's last check, as the figures rule let it through; undefined until the first one, or when held back. */
  check: Shown<EventCheck> | undefined;
  /** Why the figures are held back (said on the card instead of them). */
  withheld?: Withheld | undefined;
  nextCheckAt: number | undefined;
  now: number;
  /** @default 'paused' when the watch is paused, else 'active' */
  state?: CardState | undefined;
  /** Who removed the watch (`unwatched`). */
  endedBy?: string | undefined;
  /** How often the event is checked, said on an active card. */
  intervalMs?: number | undefined;
  /** The event's pace and forecast from its sales history, said on an active card. */
  ahead?: { forecast: Forecast; startsAtMs: number } | undefined;
}

/** The card's Chart button: the sales chart, promo codes and figures in the card's thread. */
export const WATCH_CHART_ACTION = 'watch_chart';

const CARD_TITLES: Record<CardState, Mrkdwn> = {
  active: md`Watching`,
  paused: md`Paused`,
  ended: md`Watch ended`,
  unlisted: md`Watch ended`,
  unwatched: md`Watch stopped`,
};

const resumeHint = (watch: Watch) => md`set it again with ${code(`/events watch ${watch.eventId}`, 120)}`;

/** The watch's one live card: figures, promo codes left, each condition's state, when it is checked. */
export function watchCardMessage(input: WatchCardInput): SlackMessage {
  const { watch, check, now } = input;
  const state: CardState = input.state ?? (watch.paused ? 'paused' : 'active');
  const name = eventName(watch, 130);
  const blocks: Block[] = [header(md`${CARD_TITLES[state]}: ${name}`)];
  const by = mention(input.endedBy);
  let status: Mrkdwn | undefined;
  let gist: Mrkdwn;
  switch (state) {
    case 'paused': {
      const reason = watch.paused?.reason;
      const figuresPause = Object.values(FIGURES_PAUSE).some((pause) => pause === reason);
      status = figuresPause
        ? md`:double_vertical_bar: *Paused*: its sales and revenue are not for everyone who reads this conversation now. No more checks; ${resumeHint(watch)} where they may be shown, or with \`--me\` for yourself.`
        : md`:double_vertical_bar: *Paused*: the last post here was refused${reason ? md` (${clip(reason, 200)})` : md``}. No more checks; ${resumeHint(watch)}.`;
      gist = md`Watch of ${name} paused`;
      break;
    }
    case 'ended':
      status = md`:checkered_flag: The event is over, so the watch has ended. No more checks.`;
      gist = md`Watch of ${name} ended: the event is over`;
      break;
    case 'unlisted':
      status = md`:checkered_flag: The service no longer lists this event, so the watch has ended. No more checks.`;
      gist = md`Watch of ${name} ended: the event is no longer listed by the service`;
      break;
    case 'unwatched':
      status = by
        ? md`:no_bell: ${by} stopped this watch. No more checks.`
        : md`:no_bell: This watch was stopped. No more checks.`;
      gist = md`${name} is no longer watched here`;
      break;
    case 'active':
      gist = md`Watching ${name}`;
      break;
  }
  if (status) blocks.push(mrkdwnSection(status));

  const sold = check ? soldWords(check.report) : undefined;
  const bar = sold && md`${sold.bar} ${sold.share}`;
  if (check) {
    const fields = reportFields(check.report, MAX_FIGURES);
    if (fields) blocks.push(fields);
    if (bar) blocks.push(mrkdwnSection(bar));
    const promos = promoLines(check.report, 'left');
    if (promos.length > 0) blocks.push(mrkdwnSection(md`*Promo codes*\n${joinMrkdwn(promos)}`));
    if (!fields && !bar && promos.length === 0) blocks.push(mrkdwnSection(md`The report has no figures to show here.`));
  } else if (input.withheld || state === 'paused') {
    // Held back by the figures rule, or paused (its conversation may be shared by now): no figures.
    blocks.push(mrkdwnSection(md`:lock: Sales and revenue are not shown here.`));
  } else if (state === 'active') {
    blocks.push(mrkdwnSection(md`:hourglass_flowing_sand: First check at the next spare report slot.`));
  } else {
    blocks.push(mrkdwnSection(md`The event was not checked while it was watched.`));
  }
  blocks.push(mrkdwnSection(md`*Conditions*\n${conditionLines(watch, check, MAX_CONDITION_LINES)}`));
  // The forecast is figures too: only beside a check the rule let through.
  const ahead =
    state === 'active' && check && input.ahead
      ? forecastWords(input.ahead.forecast, input.ahead.startsAtMs)
      : undefined;
  if (ahead) blocks.push(context(md`:crystal_ball: ${ahead}`));

  const timing: Mrkdwn[] = [];
  if (check) timing.push(md`as of ${readerInstant(check.checkedAt)}`);
  if (state === 'active') {
    if (input.nextCheckAt !== undefined) timing.push(nextCheckWords(input.nextCheckAt, now));
    if (input.intervalMs !== undefined) timing.push(md`checked every ${everyWords(input.intervalMs)}`);
  }
  const setBy = mention(watch.setBy);
  const about: Mrkdwn[] = [code(watch.eventId)];
  if (setBy) about.push(md`Set up by ${setBy}`);
  if (state === 'active') {
    const end = endWords(watch);
    if (end) about.push(md`until the event ends ${end}`);
  }
  blocks.push(
    context(...[timing, about].filter((parts) => parts.length > 0).map((parts) => joinMrkdwn(parts, md` · `))),
  );
  // The button names the event by its id (an id as the service gives them; nothing else is sent back).
  if (state === 'active' && check && /^[A-Za-z0-9_-]{1,200}$/.test(watch.eventId))
    blocks.push({
      type: 'actions',
      elements: [
        {
          type: 'button',
          action_id: WATCH_CHART_ACTION,
          text: { type: 'plain_text', text: 'Chart' },
          value: watch.eventId,
        },
      ],
    });

  const headline =
    sold?.share ?? (check || input.withheld ? undefined : state === 'active' ? md`first check soon` : undefined);
  const said = ahead ? md`. ${ahead}` : md``;
  return {
    text: shorten(headline ? md`${gist}: ${headline}${said}` : md`${gist}${said}`, LIMITS.fallbackText),
    blocks: blocks.slice(0, LIMITS.messageBlocks),
  };
}

export interface WatchAlertInput {
  watch: Watch;
  /** The condition that crossed. */
  condition: ConditionState;
  /** Its figure at the crossing, as `judge` measured it. */
  value: number;
  check: Shown<EventCheck>;
}

/** `*Jazz Night*` in the message, `Jazz Night` in the notification. */
type Name = Mrkdwn;

/** One crossing in words, led by the event's name (a broadcast reply is read outside the thread). */
function crossingWords(condition: WatchCondition, value: number, report: EventReport, name: Name): Mrkdwn {
  const currency = reportCurrency(report);
  switch (condition.kind) {
    case 'sold-share':
      return md`${name} is ${num(value)}% sold (watching for ${num(condition.percent)}%)`;
    case 'left': {
      const row = findQuantityRow(report, condition.code);
      const promo = md`promo ${code(row?.label ?? condition.code, 60)}`;
      if (condition.unit === 'percent') {
        const counts = row ? md`: ${num(row.left)} of ${num(row.quantity)}` : md``;
        return md`${name}: ${promo} has ${num(value)}% left${counts} (watching for ${num(condition.max)}% or less)`;
      }
      const of = row ? md` of ${num(row.quantity)}` : md``;
      return md`${name}: ${promo} has ${num(value)} left${of} (watching for ${num(condition.max)} or fewer)`;
    }
    case 'sold-since':
      return md`${name}: ${ticketsSold(value)} since the last check (watching for ${num(condition.count)} or more)`;
    case 'stall': {
      const hours = (h: number) => md`${decimal(h)} ${h === 1 ? md`hour` : md`hours`}`;
      return md`${name}: no sale for ${hours(value)} (watching for ${hours(condition.hours)})`;
    }
    case 'sold-out':
      return md`${name} is sold out`;
    case 'sells-out':
      return md`${name} is projected to sell out before it starts, around ${readerDay(value)}`;
    case 'pace-below':
      return md`${name}: sales slowed to ${decimal(value)} a day (watching for fewer than ${num(condition.perDay)})`;
    case 'pace-halves':
      return md`${name}: the last day's sales pace is ${num(Math.round(value * 100))}% of the week before's (watching for half or less)`;
    case 'figure': {
      const field = clip(humanise(condition.field), 100);
      const verb = condition.op === '>=' ? md`reached` : md`fell to`;
      return md`${name}: ${field} ${verb} ${figureValue(condition.field, value, currency)} (watching for ${code(condition.op)} ${figureValue(condition.field, condition.value, currency)})`;
    }
  }
}

const ALERT_EMOJI: Record<WatchCondition['kind'], Mrkdwn> = {
  'sold-share': md`:rotating_light:`,
  left: md`:ticket:`,
  'sold-since': md`:chart_with_upwards_trend:`,
  stall: md`:zzz:`,
  'sold-out': md`:tada:`,
  figure: md`:bar_chart:`,
  'sells-out': md`:crystal_ball:`,
  'pace-below': md`:turtle:`,
  'pace-halves': md`:chart_with_downwards_trend:`,
};

/** One reply in the card's thread for one crossing; its `text` alone carries the news to a notification. */
export function watchAlertMessage(input: WatchAlertInput): SlackMessage {
  const { watch, condition, value, check } = input;
  const name = eventName(watch, 150);
  const line = crossingWords(condition.condition, value, check.report, md`*${name}*`);
  const details: Mrkdwn[] = [
    md`as of ${readerInstant(check.checkedAt)}`,
    md`condition ${code(describeCondition(condition.condition), 100)}`,
  ];
  // The counts under a share: the share itself is the headline, as the condition judged it.
  const sold =
    condition.condition.kind === 'sold-share' || condition.condition.kind === 'sold-out'
      ? soldWords(check.report)
      : undefined;
  const blocks: Block[] = [mrkdwnSection(md`${ALERT_EMOJI[condition.condition.kind]} ${line}`)];
  if (sold) blocks.push(mrkdwnSection(md`${sold.bar} ${sold.counts}`));
  blocks.push(context(joinMrkdwn(details, md` · `)));
  return {
    text: shorten(crossingWords(condition.condition, value, check.report, name), LIMITS.fallbackText),
    blocks,
  };
}

export interface WatchSummaryInput {
  watch: Watch;
  /** The event's last check, as the figures rule let it through; undefined when never checked, or held back. */
  check: Shown<EventCheck> | undefined;
  /** Why the final figures are held back. */
  withheld?: Withheld | undefined;
  /** Why the watch ended: the event is over, or the service lists it no more. @default 'over' */
  why?: 'over' | 'unlisted' | undefined;
}

/** The last reply in the card's thread when the event is over: final figures, promo codes used, alerts and checks. */
export function watchSummaryMessage(input: WatchSummaryInput): SlackMessage {
  const { watch, check } = input;
  const name = eventName(watch, 150);
  const alerts = watch.conditions.reduce((sum, state) => sum + state.crossings, 0);
  const checks = check?.checks ?? 0;
  const unlisted = input.why === 'unlisted';
  const opening = input.withheld
    ? md`:checkered_flag: *${name}* ${unlisted ? md`is no longer listed by the service` : md`is over`}. The watch has ended.`
    : unlisted
      ? md`:checkered_flag: *${name}* is no longer listed by the service, so the watch has ended. Last figures read:`
      : md`:checkered_flag: *${name}* is over. The watch has ended; final figures:`;
  const blocks: Block[] = [mrkdwnSection(opening)];
  const bar = check ? soldBar(check.report) : undefined;
  if (check) {
    const fields = reportFields(check.report, MAX_SUMMARY_FIGURES);
    if (fields) blocks.push(fields);
    if (bar) blocks.push(mrkdwnSection(bar));
    const promos = promoLines(check.report, 'used');
    if (promos.length > 0) blocks.push(mrkdwnSection(md`*Promo codes used*\n${joinMrkdwn(promos)}`));
    if (!fields && !bar && promos.length === 0) blocks.push(mrkdwnSection(md`The report has no figures to show here.`));
  } else if (input.withheld) {
    blocks.push(mrkdwnSection(md`:lock: Its final sales and revenue are not shown here.`));
  } else {
    blocks.push(mrkdwnSection(md`No report was read while it was watched, so there are no final figures.`));
  }
  const fired = fitLines(
    watch.conditions
      .filter((state) => state.crossings > 0)
      .map((state) => md`• ${code(describeCondition(state.condition), 100)} ×${state.crossings}`),
    MAX_CONDITION_LINES,
    (left) => md`...and ${left} more condition(s)`,
  );
  blocks.push(
    mrkdwnSection(
      fired.length > 0 ? md`*Alerts*: ${alerts}\n${joinMrkdwn(fired)}` : md`*Alerts*: none (no condition was crossed)`,
    ),
  );
  const about: Mrkdwn[] = [md`${checks} check(s)`, md`watched since ${readerInstant(watch.createdAt)}`];
  if (check) about.push(md`last check ${readerInstant(check.checkedAt)}`);
  blocks.push(context(joinMrkdwn(about, md` · `)));
  const sold = check ? soldWords(check.report) : undefined;
  const headline = sold ? md`: ${sold.share}` : md``;
  return {
    text: shorten(
      unlisted
        ? md`${name} is no longer listed by the service; the watch has ended${headline}.`
        : md`${name} is over${headline}. ${alerts} alert(s), ${checks} check(s).`,
      LIMITS.fallbackText,
    ),
    blocks: blocks.slice(0, LIMITS.messageBlocks),
  };
}

export interface WatchListEntry {
  watch: Watch;
  /** The last check, as the figures rule let it through for this reader; undefined: none, or held back. */
  check: Shown<EventCheck> | undefined;
  nextCheckAt: number | undefined;
}

export interface WatchListInput {
  entries: readonly WatchListEntry[];
  /** How often each watched event is checked. */
  intervalMs: number;
  /** Why that often: the events watched in all (every conversation) and the report limit they share. */
  pace?: { watchedEvents: number; limit: number; windowMs: number; minIntervalMs: number } | undefined;
  now: number;
  /** `channel`: what is watched here (`/events watches`); `person`: the watches one person set up (App Home). */
  where: 'channel' | 'person';
}

/** The last figures of an entry in one line: sold of capacity, else the first three figures. */
function figuresLine(report: EventReport): Mrkdwn | undefined {
  const bar = soldBar(report);
  if (bar) return bar;
  const currency = reportCurrency(report);
  const figures = topFigures(report)
    .slice(0, 3)
    .map(([key, value]) => md`${clip(humanise(key), 60)}: ${figureValue(key, value, currency)}`);
  return figures.length > 0 ? joinMrkdwn(figures, md` · `) : undefined;
}

function listEntry(entry: WatchListEntry, input: WatchListInput): Mrkdwn {
  const { watch, check, nextCheckAt } = entry;
  const who = mention(watch.setBy);
  const place = watch.personal ? md`personal (your DMs)` : md`in ${channelLink(watch.channel)}`;
  const title = [md`*${eventName(watch, 150)}*`, code(watch.eventId)];
  if (input.where === 'person') title.push(place);
  if (who) title.push(md`set up by ${who}`);
  const lines: Mrkdwn[] = [joinMrkdwn(title, md` · `)];
  const figures = check ? figuresLine(check.report) : undefined;
  if (figures) lines.push(figures);
  lines.push(conditionLines(watch, check, MAX_LIST_CONDITIONS));
  const timing: Mrkdwn[] = [check ? md`last checked ${readerInstant(check.checkedAt)}` : md`not checked yet`];
  if (watch.paused) {
    timing.push(md`:double_vertical_bar: paused (${clip(watch.paused.reason, 100)}): ${resumeHint(watch)}`);
  } else if (nextCheckAt !== undefined) {
    timing.push(nextCheckWords(nextCheckAt, input.now));
  }
  lines.push(joinMrkdwn(timing, md` · `));
  return joinMrkdwn(lines);
}

/**
 * How often each watched event is checked now, and why: the report limit's slots go round every
 * watched event of the organization, so the more events are watched, the longer between checks.
 */
function paceWords(input: WatchListInput): Mrkdwn {
  const every = md`Each watched event is checked every ${everyWords(input.intervalMs)}`;
  const pace = input.pace;
  if (!pace) return md`${every}.`;
  const slots = md`${plural(pace.limit, 'report')} every ${everyWords(pace.windowMs)}`;
  const events = md`${plural(pace.watchedEvents, 'event')} ${pace.watchedEvents === 1 ? md`is` : md`are`} watched across the workspace`;
  const floor = everyWords(pace.minIntervalMs);
  const slotsBoundMs = Math.ceil(Math.max(1, pace.watchedEvents) / pace.limit) * pace.windowMs;
  return slotsBoundMs <= pace.minIntervalMs
    ? md`${every}: ${events}, and no event is checked more often than every ${floor}.`
    : md`${every}: ${events}, sharing ${slots} with people's own reports.`;
}

/** `/events watches` (what is watched in a channel) and App Home's "my watches". */
export function watchListMessage(input: WatchListInput): SlackMessage {
  const { entries } = input;
  if (entries.length === 0) {
    const text =
      input.where === 'channel'
        ? md`Nothing is watched here. Start with \`${WATCH_SYNTAX}\``
        : md`You have set up no watches. Start with \`${WATCH_SYNTAX}\``;
    return plainMessage(text);
  }
  const title = input.where === 'channel' ? md`Watched here (${entries.length})` : md`Your watches (${entries.length})`;
  const blocks: Block[] = [header(title)];
  // Room for the header, the closing "...and N more" line and the footer.
  const room = LIMITS.messageBlocks - 3;
  const shown = entries.slice(0, room);
  for (const entry of shown) blocks.push(mrkdwnSection(listEntry(entry, input)));
  if (shown.length < entries.length) blocks.push(context(md`...and ${entries.length - shown.length} more watch(es)`));
  blocks.push(context(md`${paceWords(input)} Alerts go to each card's thread.`));
  const names = joinMrkdwn(
    entries.slice(0, 5).map((entry) => eventName(entry.watch, 80)),
    md`, `,
  );
  const more = entries.length > 5 ? md` and ${entries.length - 5} more` : md``;
  return { text: shorten(md`${title}: ${names}${more}`, LIMITS.fallbackText), blocks };
}

/** The DM to the person who set a watch up when its conversation refuses posts (as `digestPausedMessage`). */
export function watchPausedMessage(watch: Watch, reason: Mrkdwn): SlackMessage {
  const name = eventName(watch, 150);
  const why = shorten(reason, 200);
  if (watch.personal) {
    return plainMessage(
      md`Your personal watch of *${name}* could not be posted (${why}), so it is paused. Run ${code(`/events watch ${watch.eventId}`, 120)} again to resume.`,
    );
  }
  return plainMessage(
    md`The watch of *${name}* you set up in ${channelLink(watch.channel)} could not be posted (${why}), so it is paused. Invite me back with \`/invite @eventops\` and run ${code(`/events watch ${watch.eventId}`, 120)} there to resume.`,
  );
}

export interface WatchConfirmationInput {
  watch: Watch;
  /** The card could not be posted yet (Slack failed for a while): the next check posts it. */
  cardPending?: boolean | undefined;
  /** Keys of the conditions this command added. */
  added: readonly string[];
  /** Keys of the conditions asked for that the watch already had. */
  already: readonly string[];
  /** Keys of the conditions already met by the report they were read from: no alert for those. */
  alreadyCrossed?: readonly string[] | undefined;
  intervalMs: number;
}

/** The private answer to `/events watch`: what is watched now, and what already was. */
export function watchConfirmationMessage(input: WatchConfirmationInput): SlackMessage {
  const { watch } = input;
  const name = eventName(watch, 150);
  const place = watch.personal ? md`for you` : md`in ${channelLink(watch.channel)}`;
  const keys = (list: readonly string[]) => {
    const shown = list.slice(0, MAX_CONDITION_LINES).map((key) => code(key, 100));
    const more = list.length > shown.length ? md` and ${list.length - shown.length} more` : md``;
    return md`${joinMrkdwn(shown, md`, `)}${more}`;
  };
  const lines: Mrkdwn[] = [
    md`:eyes: Watching *${name}* ${place}: one card, updated every ${everyWords(input.intervalMs)}, alerts in its thread.`,
  ];
  if (input.cardPending)
    lines.push(
      md`• The watch is set, but Slack did not take its card just now: the card follows with the next check. No need to set it again.`,
    );
  if (input.added.length > 0) lines.push(md`• Added: ${keys(input.added)}`);
  if (input.already.length > 0) lines.push(md`• Already watched: ${keys(input.already)}`);
  if (input.added.length === 0 && input.already.length === 0 && watch.conditions.length === 0)
    lines.push(md`• No conditions: the card keeps the figures up to date.`);
  if (input.alreadyCrossed && input.alreadyCrossed.length > 0)
    lines.push(
      md`• Already crossed when the watch was set: ${keys(input.alreadyCrossed)} (no alert for that; one comes if it clears and crosses again)`,
    );
  const all = watch.conditions.map((state) => state.key);
  if (all.length > 0) lines.push(md`• All conditions now: ${keys(all)}`);
  const text = joinMrkdwn(lines);
  return {
    text: shorten(md`Watching ${name} ${place}`, LIMITS.fallbackText),
    blocks: [mrkdwnSection(text)],
  };
}

/** Why a watch was not set or changed: too many conditions or watches, or nothing the report lets us watch. */
export function watchRefusedMessage(
  input:
    | { kind: 'too-many-conditions'; max: number; eventName: string }
    | { kind: 'too-many-watches'; max: number; eventName?: string }
    | { kind: 'too-many-for-person'; max: number; paused?: number; eventName?: string }
    | { kind: 'nothing-to-watch'; eventName: string },
): SlackMessage {
  switch (input.kind) {
    case 'too-many-conditions':
      return warningMessage(
        md`A watch holds at most ${input.max} conditions, and *${clip(input.eventName, 150)}* would have more here: nothing was changed. \`/events watches\` lists them; \`/events unwatch\` starts over.`,
      );
    case 'too-many-watches':
      return warningMessage(
        md`At most ${input.max} events are watched in one conversation (each takes report slots and a card): nothing was changed. \`/events watches\` lists them.`,
      );
    case 'too-many-for-person': {
      const paused = input.paused
        ? md` ${input.paused} of them ${input.paused === 1 ? md`is` : md`are`} paused and still count: end those first.`
        : md``;
      return warningMessage(
        md`You have set up ${input.max} watches, as many as one person may (every watched event shares the same report slots): nothing was changed.${paused} \`/events watches\` lists a conversation's watches, App Home lists yours; \`/events unwatch\` ends one.`,
      );
    }
    case 'nothing-to-watch':
      return warningMessage(
        md`The latest report of *${clip(input.eventName, 150)}* holds nothing to watch by default (no tickets sold of a capacity, no promo codes): name a condition, such as \`checkIns >= 100\`.`,
      );
  }
}

/**
 * How setting a watch came out, in words (`problem`: how this surface says a problem with the
 * conditions: the command adds its usage line, the form asks to open it again).
 */
export function watchOutcomeMessage(
  outcome: SetWatchOutcome,
  eventName: string,
  problem: (words: Mrkdwn) => SlackMessage,
): SlackMessage {
  switch (outcome.kind) {
    case 'over':
      return warningMessage(md`*${clip(eventName, 200)}* is over: there is nothing left to watch.`);
    case 'wording':
    case 'conditions':
      return problem(clip(outcome.problem, 300));
    case 'refused':
      return watchRefusedMessage({ ...outcome.refusal, eventName });
    case 'nothing-to-watch':
      return watchRefusedMessage({ kind: 'nothing-to-watch', eventName });
    case 'set':
      return outcome.result.watch.paused
        ? warningMessage(md`I could not post the watch card there, so the watch is paused. I sent you the reason.`)
        : watchConfirmationMessage({ ...outcome.result, alreadyCrossed: outcome.alreadyCrossed });
  }
}
