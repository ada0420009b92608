import type { DigestEntry } from '../digest/digest-day.js';
import type { Subscription } from '../digest/subscription.js';
import { parsePlainDate } from '../time/zoned.js';
import { type Block, context, header, LIMITS, mrkdwnSection, type SlackMessage } from './block-kit.js';
import { eventPlainTitle, eventSection } from './event-blocks.js';
import { channelLink, clip, dateToken, joinMrkdwn, md, mentionUser } from './mrkdwn.js';

export interface DigestInput {
  /** What the digest lists, each under its day, in order (see `digestEntries`). */
  entries: DigestEntry[];
  days: number;
  /** The subscription's local date this digest is for (`YYYY-MM-DD`). */
  date: string;
}

const dayTitle = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', weekday: 'long', day: 'numeric', month: 'long' });

/** `Sunday 22 November` for a `YYYY-MM-DD` (a calendar date: never shifted by a zone). */
function formatDay(day: string): string {
  const date = parsePlainDate(day);
  return date ? dayTitle.format(Date.UTC(date.year, date.month - 1, date.day, 12)) : day;
}

/** The daily digest: whole days in the channel's zone, each day's events soonest first, within Slack's limits. */
export function digestMessage(input: DigestInput): SlackMessage {
  const window = input.days === 1 ? md`today` : md`the next ${input.days} days`;
  const { entries } = input;
  if (entries.length === 0) {
    return {
      text: md`Daily digest for ${clip(input.date, 10)}: nothing scheduled ${window}.`,
      blocks: [mrkdwnSection(md`:calendar: Nothing scheduled ${window}.`)],
    };
  }
  const blocks: Block[] = [header(md`Events ${window} (${entries.length})`)];
  // Keep room for the closing "...and N more" line.
  const room = LIMITS.messageBlocks - 2;
  let currentDay = '';
  let shown = 0;
  for (const entry of entries) {
    const needed = (entry.day === currentDay ? 0 : 1) + 2;
    if (blocks.length + needed > room) break;
    if (entry.day !== currentDay) {
      currentDay = entry.day;
      const count = entries.filter((e) => e.day === entry.day).length;
      blocks.push(mrkdwnSection(md`*${clip(formatDay(entry.day), 80)}* · ${count} event(s)`));
    }
    blocks.push(...eventSection(entry.event));
    shown += 1;
  }
  if (shown < entries.length)
    blocks.push(context(md`...and ${entries.length - shown} more: \`/events list\` shows them all`));
  const first = (entries[0] as DigestEntry).event;
  return {
    text: md`Daily digest for ${clip(input.date, 10)}: ${entries.length} event(s) ${window}, first ${eventPlainTitle(first)}`,
    blocks,
  };
}

/** A subscription with its next run, for `/events digest status`. */
export type DigestStatusInput = Subscription & { nextAt: number };

const instant = (ms: number, timezone: string) =>
  new Intl.DateTimeFormat('en-GB', {
    timeZone: timezone,
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(ms);

/** `/events digest status`. */
export function digestStatusMessage(input: DigestStatusInput): SlackMessage {
  const paused =
    input.status === 'failing'
      ? md`  :warning: *Paused*: the channel refused posts (${clip(input.failure ?? 'unknown', 60)})`
      : md``;
  const window = input.days === 1 ? md`today's events` : md`the events of today and the next ${input.days - 1} day(s)`;
  const next =
    input.status === 'active'
      ? md`${clip(instant(input.nextAt, input.timezone), 40)} (${dateToken(input.nextAt, '{date_short_pretty} at {time} your time', new Date(input.nextAt).toISOString())})`
      : md`none until it is turned on again`;
  const last = input.lastRun
    ? md`${clip(input.lastRun.date, 10)}: ${clip(input.lastRun.outcome, 20)} at ${clip(input.lastRun.at.slice(0, 16).replace('T', ' '), 20)} UTC`
    : md`not yet`;
  const lines = [
    md`*Daily digest in ${channelLink(input.channelId)}*${paused}`,
    md`• Time: ${clip(input.time, 5)} ${clip(input.timezone, 60)}`,
    md`• Window: ${window}, whole days in ${clip(input.timezone, 60)}${input.skipEmpty ? md`, nothing posted when empty` : md``}`,
    md`• Next run: ${next}`,
    md`• Last run: ${last}`,
    md`• Set up by ${mentionUser(input.createdBy)} on ${clip(input.createdAt.slice(0, 10), 10)}`,
  ];
  return {
    text: md`Daily digest at ${clip(input.time, 5)} ${clip(input.timezone, 60)}`,
    blocks: [mrkdwnSection(joinMrkdwn(lines))],
  };
}
