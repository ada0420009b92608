import type { Subscription } from '../digest/subscription.js';
import type { TicketingEvent } from '../ticketing/schemas.js';
import { formatPlainDate, plainDateAt } from '../time/zoned.js';
import { type Block, context, header, LIMITS, mrkdwnSection, type SlackMessage } from './block-kit.js';
import { safeText } from './escape.js';
import { eventPlainTitle, eventSection } from './event-blocks.js';

export interface DigestInput {
  /** Events starting within the window, any order. */
  events: TicketingEvent[];
  /** The digest's own zone: days are grouped by its calendar. */
  timezone: string;
  days: number;
  /** The subscription's local date this digest is for (`YYYY-MM-DD`). */
  date: string;
}

const dayTitle = (timezone: string) =>
  new Intl.DateTimeFormat('en-GB', { timeZone: timezone, weekday: 'long', day: 'numeric', month: 'long' });

/** The daily digest: events soonest first, grouped by day, within Slack's limits. */
export function digestMessage(input: DigestInput): SlackMessage {
  const window = input.days === 1 ? 'today' : `the next ${input.days} days`;
  const title = `Events ${window}`;
  const sorted = [...input.events].sort((a, b) => a.startsAtMs - b.startsAtMs || a.id.localeCompare(b.id));
  if (sorted.length === 0) {
    return {
      text: `Daily digest for ${input.date}: nothing scheduled ${window}.`,
      blocks: [mrkdwnSection(`:calendar: Nothing scheduled ${window}.`)],
    };
  }
  const blocks: Block[] = [header(`${title} (${sorted.length})`)];
  // Keep room for the closing "...and N more" line.
  const room = LIMITS.messageBlocks - 2;
  let currentDay = '';
  let shown = 0;
  for (const event of sorted) {
    const day = formatPlainDate(plainDateAt(Math.max(event.startsAtMs, 0), input.timezone));
    const needed = (day === currentDay ? 0 : 1) + 2;
    if (blocks.length + needed > room) break;
    if (day !== currentDay) {
      currentDay = day;
      const count = sorted.filter((e) => formatPlainDate(plainDateAt(e.startsAtMs, input.timezone)) === day).length;
      blocks.push(
        mrkdwnSection(`*${safeText(dayTitle(input.timezone).format(event.startsAtMs), 80)}* · ${count} event(s)`),
      );
    }
    blocks.push(...eventSection(event));
    shown += 1;
  }
  if (shown < sorted.length)
    blocks.push(context(`...and ${sorted.length - shown} more: \`/events list\` shows them all`));
  const first = sorted[0] as TicketingEvent;
  return {
    text: `Daily digest for ${input.date}: ${sorted.length} event(s) ${window}, first ${eventPlainTitle(first)}`,
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
  const lines = [
    `*Daily digest in <#${input.channelId}>*${input.status === 'failing' ? `  :warning: *Paused*: the channel refused posts (${safeText(input.failure ?? 'unknown', 60)})` : ''}`,
    `• Time: ${input.time} ${safeText(input.timezone, 60)}`,
    `• Window: events starting in the next ${input.days} day(s)${input.skipEmpty ? ', nothing posted when empty' : ''}`,
    `• Next run: ${input.status === 'active' ? `${instant(input.nextAt, input.timezone)} (<!date^${Math.floor(input.nextAt / 1000)}^{date_short_pretty} at {time} your time|${new Date(input.nextAt).toISOString()}>)` : 'none until it is turned on again'}`,
    `• Last run: ${input.lastRun ? `${input.lastRun.date}: ${input.lastRun.outcome} at ${input.lastRun.at.slice(0, 16).replace('T', ' ')} UTC` : 'not yet'}`,
    `• Set up by <@${input.createdBy}> on ${input.createdAt.slice(0, 10)}`,
  ];
  return { text: `Daily digest at ${input.time} ${input.timezone}`, blocks: [mrkdwnSection(lines.join('\n'))] };
}
