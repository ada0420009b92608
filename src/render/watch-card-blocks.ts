import type { Shown, Withheld } from '../figures/may-show-figures.js';
import type { Comparables } from '../forecast/comparables.js';
import type { Forecast } from '../forecast/forecast.js';
import { parsePlainDate } from '../time/zoned.js';
import type { EventCheck, Watch } from '../watches/watch.js';
import { FIGURES_PAUSE } from '../watches/watch-figures.js';
import { type Block, context, header, LIMITS, mrkdwnSection, type SlackMessage } from './block-kit.js';
import { CANCELLED_CARD_STATUS } from './cancelled-words.js';
import { comparablesWords } from './comparables-words.js';
import { everyWords } from './every-words.js';
import { clip, code, escapeText, joinMrkdwn, type Mrkdwn, md, readerInstant, shorten } from './mrkdwn.js';
import { forecastWords } from './sales-blocks.js';
import { snoozedLine } from './watch-quiet-blocks.js';
import {
  conditionLines,
  eventName,
  MAX_CONDITION_LINES,
  MAX_FIGURES,
  mention,
  nextCheckWords,
  promoLines,
  reportFields,
  resumeHint,
  soldWords,
} from './watch-words.js';

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

type CardState = 'active' | 'paused' | 'ended' | 'unlisted' | 'cancelled' | 'unwatched';

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
  ahead?: { forecast: Forecast; startsAtMs: number; comparables?: Comparables | undefined } | undefined;
}

/** The card's Chart button: the sales chart, promo codes and figures in the card's thread. */
export const WATCH_CHART_ACTION = 'watch_chart';

const CARD_TITLES: Record<CardState, Mrkdwn> = {
  active: md`Watching`,
  paused: md`Paused`,
  ended: md`Watch ended`,
  unlisted: md`Watch ended`,
  cancelled: md`Watch ended`,
  unwatched: md`Watch stopped`,
};

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
    case 'cancelled':
      status = CANCELLED_CARD_STATUS;
      gist = md`Watch of ${name} ended: the event is cancelled`;
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
  const snoozed = state === 'active' ? snoozedLine(watch, now) : undefined;
  if (snoozed) blocks.push(snoozed);

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
  const standing =
    state === 'active' && check && input.ahead?.comparables ? comparablesWords(input.ahead.comparables) : undefined;
  if (standing) blocks.push(context(md`:bar_chart: ${standing}`));

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
