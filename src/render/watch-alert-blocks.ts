import type { Shown } from '../figures/may-show-figures.js';
import { findQuantityRow } from '../reports/report-figures.js';
import type { EventReport } from '../ticketing/schemas.js';
import type { Measured } from '../watches/similar-judgement.js';
import type { ConditionState, EventCheck, Watch } from '../watches/watch.js';
import { describeCondition, type WatchCondition } from '../watches/watch-condition.js';
import { type Block, context, LIMITS, mrkdwnSection, type SlackMessage } from './block-kit.js';
import { measuredWords } from './comparables-words.js';
import { clip, code, joinMrkdwn, type Mrkdwn, md, readerDay, readerInstant, shorten } from './mrkdwn.js';
import { humanise, reportCurrency } from './report-blocks.js';
import { decimal, eventName, figureValue, mention, num, soldWords, ticketsSold } from './watch-words.js';

/** The alert's quieting buttons: snooze the watch (for everyone), or mute it for the one who clicks. */
export const WATCH_SNOOZE_ACTIONS = {
  '1h': 'watch_snooze_1h',
  '1d': 'watch_snooze_1d',
  threshold: 'watch_snooze_threshold',
} as const;
export const WATCH_MUTE_ACTION = 'watch_mute';

export interface WatchAlertInput {
  watch: Watch;
  /** The condition that crossed. */
  condition: ConditionState;
  /** Its figure at the crossing, as `judge` measured it. */
  value: number;
  check: Shown<EventCheck>;
  /** Who the alert names: who set the watch up and who added the condition, unless they muted it. */
  mentions?: readonly string[] | undefined;
}

/** `*Jazz Night*` in the message, `Jazz Night` in the notification. */
type Name = Mrkdwn;

/** One crossing in words, led by the event's name (a broadcast reply is read outside the thread). */
function crossingWords(
  condition: WatchCondition,
  value: number,
  report: EventReport,
  name: Name,
  measured?: Measured,
): Mrkdwn {
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
      // A level, not a slowdown: the pace the card's forecast line shows (the last week, else the last day).
      return md`${name}: sales run at ${decimal(value)} a day (watching for fewer than ${num(condition.perDay)})`;
    case 'pace-halves':
      return md`${name}: the last day's sales pace is ${num(Math.round(value * 100))}% of the week before's (watching for half or less)`;
    case 'behind-similar':
      return measured?.kind === 'behind-similar'
        ? md`${name} is behind similar events: ${measuredWords(measured)}`
        : md`${name} is behind similar events: ${num(value)}% sold`;
    case 'flatline':
      return measured?.kind === 'flatline'
        ? md`${name} may have a sales problem: ${measuredWords(measured)}`
        : md`${name} may have a sales problem: a pause this long has about a ${num(value)}% chance at similar events' pace`;
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
  'behind-similar': md`:snail:`,
  flatline: md`:warning:`,
};

/** One reply in the card's thread for one crossing; its `text` alone carries the news to a notification. */
export function watchAlertMessage(input: WatchAlertInput): SlackMessage {
  const { watch, condition, value, check } = input;
  const name = eventName(watch, 150);
  const line = crossingWords(condition.condition, value, check.report, md`*${name}*`, condition.measured);
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
  const named = (input.mentions ?? []).flatMap((person) => mention(person) ?? []);
  if (named.length > 0) details.push(md`for ${joinMrkdwn(named, md` `)}`);
  blocks.push(context(joinMrkdwn(details, md` · `)));
  // The buttons name the event by its id (an id as the service gives them; nothing else is sent back).
  if (/^[A-Za-z0-9_-]{1,200}$/.test(watch.eventId)) blocks.push(quietingButtons(watch));
  return {
    text: shorten(
      crossingWords(condition.condition, value, check.report, name, condition.measured),
      LIMITS.fallbackText,
    ),
    blocks,
  };
}

const button = (actionId: string, text: string, value: string) =>
  ({ type: 'button', action_id: actionId, text: { type: 'plain_text', text }, value }) as const;

/** Snooze for an hour, a day or until the next threshold; a channel watch also offers Mute for me. */
function quietingButtons(watch: Watch): Block {
  const elements = [
    button(WATCH_SNOOZE_ACTIONS['1h'], 'Snooze 1 hour', watch.eventId),
    button(WATCH_SNOOZE_ACTIONS['1d'], 'Snooze 1 day', watch.eventId),
    button(WATCH_SNOOZE_ACTIONS.threshold, 'Snooze until next threshold', watch.eventId),
  ];
  if (!watch.personal) elements.push(button(WATCH_MUTE_ACTION, 'Mute for me', watch.eventId));
  return { type: 'actions', elements };
}
