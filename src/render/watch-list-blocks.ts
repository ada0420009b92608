import type { Shown } from '../figures/may-show-figures.js';
import { topFigures } from '../reports/report-figures.js';
import type { EventReport } from '../ticketing/schemas.js';
import type { EventCheck, Watch } from '../watches/watch.js';
import { type Block, context, header, LIMITS, mrkdwnSection, plainMessage, type SlackMessage } from './block-kit.js';
import { everyWords } from './every-words.js';
import { channelLink, clip, code, joinMrkdwn, type Mrkdwn, md, readerInstant, shorten } from './mrkdwn.js';
import { plural } from './plural.js';
import { humanise, reportCurrency } from './report-blocks.js';
import { snoozeWords } from './watch-quiet-blocks.js';
import {
  conditionLines,
  eventName,
  figureValue,
  MAX_LIST_CONDITIONS,
  mention,
  nextCheckWords,
  resumeHint,
  soldBar,
} from './watch-words.js';

const WATCH_SYNTAX = md`/events watch <event id or name> [conditions]`;

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
  /** The channel keeps its alerts in the cards' threads (`/events watches thread-only on`). */
  threadOnly?: boolean | undefined;
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
  const snoozed = watch.paused ? undefined : snoozeWords(watch, input.now);
  if (snoozed) timing.push(md`:zzz: alerts snoozed ${snoozed}`);
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
  if (shown.length < entries.length)
    blocks.push(context(md`...and ${plural(entries.length - shown.length, 'more watch', 'more watches')}`));
  const alerts = input.threadOnly
    ? md`Alerts stay in each card's thread (thread-only): only a sell-out and an event's end show here too.`
    : md`Alerts go to each card's thread.`;
  blocks.push(context(md`${paceWords(input)} ${alerts}`));
  const names = joinMrkdwn(
    entries.slice(0, 5).map((entry) => eventName(entry.watch, 80)),
    md`, `,
  );
  const more = entries.length > 5 ? md` and ${entries.length - 5} more` : md``;
  return { text: shorten(md`${title}: ${names}${more}`, LIMITS.fallbackText), blocks };
}
