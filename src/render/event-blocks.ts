import type { TicketingEvent } from '../ticketing/schemas.js';
import { type Block, context, header, LIMITS, mrkdwnSection, type SlackMessage } from './block-kit.js';
import { safeText } from './escape.js';
import { describeEventTime } from './event-time.js';

const STATUS_BADGES: Record<string, string> = {
  cancelled: ':no_entry: *Cancelled*',
  draft: ':pencil2: *Draft*',
  postponed: ':hourglass: *Postponed*',
};

/** The event's name, escaped; events without one are named by id. */
export function eventTitle(event: TicketingEvent, max = 200): string {
  return event.name ? safeText(event.name, max) : `Event ${safeText(event.id, 80)}`;
}

/** Plain-text title for notifications (fallback `text`), escaped all the same. */
export function eventPlainTitle(event: TicketingEvent): string {
  return eventTitle(event, 120);
}

function statusBadge(event: TicketingEvent): string | undefined {
  if (!event.status || event.status === 'published' || event.status === 'live') return undefined;
  return STATUS_BADGES[event.status] ?? `*${safeText(event.status, 30)}*`;
}

/**
 * The reader's own local time through Slack's date token (mrkdwn only), with a UTC fallback for
 * clients that cannot render it. Plain-date events have no instant to convert, so none.
 */
export function readerTime(event: TicketingEvent): string | undefined {
  if (event.start.kind !== 'instant') return undefined;
  const unix = Math.floor(event.startsAtMs / 1000);
  const fallback = `${new Date(event.startsAtMs).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return `<!date^${unix}^{date_short_pretty} at {time}|${fallback}>`;
}

/** One event as a section: title, status, local time in its own zone, the reader's time. */
export function eventSection(event: TicketingEvent): Block[] {
  const badge = statusBadge(event);
  const lines = [
    `*${eventTitle(event)}*${badge ? `  ${badge}` : ''}`,
    `:calendar: ${safeText(describeEventTime(event), 300)}`,
  ];
  const yours = readerTime(event);
  if (yours) lines.push(`:clock3: Your time: ${yours}`);
  if (event.venue) lines.push(`:round_pushpin: ${safeText(event.venue, 200)}`);
  return [mrkdwnSection(lines.join('\n')), context(`\`${safeText(event.id, 100)}\``)];
}

/** `/events show`: one event's card. */
export function eventCardMessage(event: TicketingEvent): SlackMessage {
  return {
    text: `${eventPlainTitle(event)}: ${describeEventTime(event)}`.slice(0, LIMITS.fallbackText),
    blocks: [header(eventTitle(event, 150)), ...eventSection(event)],
  };
}

export interface EventListOptions {
  title: string;
  events: TicketingEvent[];
  /** The "Next" button's value, when there is a next page. */
  nextValue?: string | undefined;
  /** Shown when there are no events. */
  emptyText?: string;
  /** 1-based page number, for the footer. */
  page?: number;
}

export const NEXT_PAGE_ACTION = 'events_next_page';

/** `/events list`: a page of events with a "Next" button that carries the API cursor. */
export function eventListMessage(options: EventListOptions): SlackMessage {
  const blocks: Block[] = [header(options.title)];
  if (options.events.length === 0) {
    blocks.push(mrkdwnSection(options.emptyText ?? 'No upcoming events.'));
    return { text: `${options.title}: none`, blocks };
  }
  // Two blocks an event, plus header and actions: never past the 50-block limit.
  const room = Math.floor((LIMITS.messageBlocks - 3) / 2);
  const shown = options.events.slice(0, room);
  for (const event of shown) blocks.push(...eventSection(event));
  const hidden = options.events.length - shown.length;
  if (hidden > 0) blocks.push(context(`...and ${hidden} more`));
  if (options.nextValue) {
    blocks.push({
      type: 'actions',
      elements: [
        {
          type: 'button',
          action_id: NEXT_PAGE_ACTION,
          text: { type: 'plain_text', text: 'Next' },
          value: options.nextValue,
        },
      ],
    });
  }
  const first = shown[0];
  const summary = `${options.title}: ${options.events.length} event(s)${options.page ? `, page ${options.page}` : ''}`;
  return { text: first ? `${summary}. First: ${eventPlainTitle(first)}` : summary, blocks };
}
