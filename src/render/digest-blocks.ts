import type { DayEntry } from '../catalog/calendar-days.js';
import type { DigestOutcome } from '../digest/digest-runner.js';
import { describeWeekdays, type Subscription } from '../digest/subscription.js';
import { parsePlainDate } from '../time/zoned.js';
import {
  type Block,
  context,
  header,
  LIMITS,
  mrkdwnSection,
  plainMessage,
  type SlackMessage,
  warningMessage,
} from './block-kit.js';
import { eventPlainTitle, eventSection } from './event-blocks.js';
import { channelLink, clip, dateToken, joinMrkdwn, type Mrkdwn, md, mentionUser } from './mrkdwn.js';

export interface DigestInput {
  /** What the digest lists, each under its day, in order (see `eventsByDay`). */
  entries: DayEntry[];
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
  const first = (entries[0] as DayEntry).event;
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
    md`• Events: ${input.match ? md`named like "${clip(input.match, 100)}"` : md`all`}`,
    md`• Days: ${input.weekdays ? clip(describeWeekdays(input.weekdays), 40) : md`every day`}`,
    md`• Next run: ${next}`,
    md`• Last run: ${last}`,
    md`• Set up by ${mentionUser(input.createdBy)} on ${clip(input.createdAt.slice(0, 10), 10)}`,
  ];
  return {
    text: md`Daily digest at ${clip(input.time, 5)} ${clip(input.timezone, 60)}`,
    blocks: [mrkdwnSection(joinMrkdwn(lines))],
  };
}

/** The channel message that proves the bot may post there, before anything is saved. */
export function digestAnnouncement(subscription: Subscription): SlackMessage {
  const text = md`${mentionUser(subscription.createdBy)} set up a daily digest here: ${windowWords(subscription.days)}, every day at ${clip(subscription.time, 5)} (${clip(subscription.timezone, 60)}).`;
  return { text, blocks: [mrkdwnSection(text)] };
}

const windowWords = (days: number) => (days === 1 ? md`today's events` : md`the events of the next ${days} days`);

const ZONE_NOTES: Record<'named' | 'person' | 'default', Mrkdwn> = {
  named: md``,
  person: md` (your Slack timezone)`,
  default: md` (Slack did not tell me your timezone)`,
};

/** The private answer to `/events digest on`. */
export function digestOnMessage(
  subscription: Subscription,
  firstDate: string,
  zoneSource: 'named' | 'person' | 'default',
): SlackMessage {
  return plainMessage(
    md`:white_check_mark: Daily digest on: ${clip(subscription.time, 5)} ${clip(subscription.timezone, 60)}${ZONE_NOTES[zoneSource]}, ${windowWords(subscription.days)}. First one: ${clip(firstDate, 10)}.`,
  );
}

export function noDigestMessage(): SlackMessage {
  return plainMessage(
    md`This channel has no daily digest. Turn one on with \`/events digest on [HH:MM] [zone] [--days N]\`.`,
  );
}

export function digestOffMessage(removed: boolean): SlackMessage {
  return removed ? plainMessage(md`Daily digest off for this channel.`) : noDigestMessage();
}

/** What `/events digest now` tells the person: "already posted" only when it was. */
export function digestNowMessage(
  outcome: DigestOutcome,
  now: number,
  channelProblem: Mrkdwn | undefined,
): SlackMessage {
  switch (outcome.kind) {
    case 'sent':
      return plainMessage(md`Posted today's digest.`);
    case 'skipped-empty':
      return plainMessage(md`Nothing is scheduled, and this digest skips empty days: nothing posted.`);
    case 'already-sent':
      return plainMessage(md`Today's digest was already posted here.`);
    case 'in-progress':
      return plainMessage(md`Today's digest is being posted right now.`);
    case 'channel-failing':
      return warningMessage(md`This channel refused the digest, so it is paused. ${channelProblem ?? md``}`);
    case 'failed':
      return warningMessage(
        outcome.retryAt === undefined
          ? md`The digest could not be posted, and its grace period is over. It has been logged.`
          : md`The digest could not be posted just now; I'll try again in about ${Math.max(1, Math.ceil((outcome.retryAt - now) / 60_000))} minute(s).`,
      );
    case 'not-this-weekday':
      return plainMessage(md`This digest does not post on this weekday.`);
    case 'no-subscription':
      return noDigestMessage();
  }
}

/** The DM to the person who set a digest up when its channel refuses posts. */
export function digestPausedMessage(channelId: string, reason: string): SlackMessage {
  return plainMessage(
    md`The daily digest you set up in ${channelLink(channelId)} could not be posted (${clip(reason, 40)}), so it is paused. Invite me back with \`/invite @eventops\` and run \`/events digest on\` there to resume.`,
  );
}
