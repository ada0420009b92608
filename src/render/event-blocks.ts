import type { TicketingEvent } from '../ticketing/schemas.js';
import { type Block, context, header, LIMITS, mrkdwnSection, type SlackMessage } from './block-kit.js';
import { describeEventTime } from './event-time.js';
import { clip, clipName, code, dateToken, joinMrkdwn, type Mrkdwn, md, readerInstant, shorten } from './mrkdwn.js';
import { plural } from './plural.js';

const STATUS_BADGES: Record<string, Mrkdwn> = {
  cancelled: md`:no_entry: *Cancelled*`,
  draft: md`:pencil2: *Draft*`,
  postponed: md`:hourglass: *Postponed*`,
};

/** How an event is named in words: its name, or its id when it has none. Raw text, not markup. */
export function eventLabel(event: Pick<TicketingEvent, 'id' | 'name'>): string {
  return event.name ?? `Event ${event.id}`;
}

/**
 * The event's name as markup, read as written (its `*`, `_`, `~` and backticks style nothing); events
 * without one are named by id.
 */
export function eventTitle(event: Pick<TicketingEvent, 'id' | 'name'>, max = 200): Mrkdwn {
  return clipName(eventLabel(event), max);
}

/** A shorter title for notifications (fallback `text`). */
export function eventPlainTitle(event: Pick<TicketingEvent, 'id' | 'name'>): Mrkdwn {
  return eventTitle(event, 120);
}

function statusBadge(event: TicketingEvent): Mrkdwn | undefined {
  if (!event.status || event.status === 'published' || event.status === 'live') return undefined;
  return STATUS_BADGES[event.status] ?? md`*${clip(event.status, 30)}*`;
}

/**
 * The reader's own local time through Slack's date token (mrkdwn only), with a UTC fallback for
 * clients that cannot render it. Plain-date events have no instant to convert, so none.
 */
export function readerTime(event: TicketingEvent): Mrkdwn | undefined {
  if (event.start.kind !== 'instant') return undefined;
  return readerInstant(event.startsAtMs);
}

/**
 * One event as a section: title, status, local time in its own zone, the reader's time.
 * `titled: false` under a header that names the event already: the status alone heads it.
 */
export function eventSection(event: TicketingEvent, options: { titled?: boolean } = {}): Block[] {
  const badge = statusBadge(event);
  const title =
    options.titled === false ? badge : badge ? md`*${eventTitle(event)}*  ${badge}` : md`*${eventTitle(event)}*`;
  const lines = [...(title ? [title] : []), md`:calendar: ${clip(describeEventTime(event), 300)}`];
  const yours = readerTime(event);
  if (yours) lines.push(md`:clock3: Your time: ${yours}`);
  if (event.venue) lines.push(md`:round_pushpin: ${clip(event.venue, 200)}`);
  return [mrkdwnSection(joinMrkdwn(lines)), context(code(event.id))];
}

/**
 * "Event list as of 14:05" under a list, "Details as of 14:05" under one event's card: how old the
 * catalog's knowledge is, in the reader's own time.
 */
export function asOfLine(asOf: number, about: 'list' | 'event' = 'list'): Mrkdwn {
  const what = about === 'list' ? md`Event list` : md`Details`;
  return md`${what} as of ${dateToken(asOf, '{time}', `${new Date(asOf).toISOString().slice(11, 16)} UTC`)}`;
}

/**
 * Words after `list` that are no range (`nextweek`) were searched for in event names: said so,
 * with the ranges that exist.
 */
export function searchedForNote(words: string, rangeWords: readonly string[]): Mrkdwn {
  const named = rangeWords.map((range) => code(`/events list ${range}`));
  const last = named.pop() ?? md``;
  const ranges = named.length > 0 ? md`${joinMrkdwn(named, md`, `)} or ${last}` : last;
  return md`"${clip(words, 60)}" is not a range, so I searched for it in event names (for a range, type ${ranges}).`;
}

/** `/events show`: one event's card, its name in the header alone, with its buttons (`promo`: for a promo editor). */
export function eventCardMessage(
  event: TicketingEvent,
  asOf?: number,
  options: { promo?: boolean } = {},
): SlackMessage {
  const blocks = [
    header(clip(eventLabel(event), 150)),
    ...eventSection(event, { titled: false }),
    cardActions(event, options.promo === true),
  ];
  if (asOf !== undefined) blocks.push(context(asOfLine(asOf, 'event')));
  return {
    text: shorten(md`${eventPlainTitle(event)}: ${clip(describeEventTime(event), 300)}`, LIMITS.fallbackText),
    blocks,
  };
}

export const PICK_SHOW_ACTION = 'event_pick_show';
export const PICK_REPORT_ACTION = 'event_pick_report';
/** Opens the promo form with this event picked (promo editors only). */
export const PROMO_FOR_EVENT_ACTION = 'event_promo';
/** Opens the watch form with this event picked. */
export const WATCH_FOR_EVENT_ACTION = 'event_watch';
/** Runs the command a choice's button carries (`/events watch <id>: ...`), parsed again as if typed. */
export const FINISH_COMMAND_ACTION = 'events_finish_command';

const button = (actionId: string, text: string, value: string) => ({
  type: 'button' as const,
  action_id: actionId,
  text: { type: 'plain_text' as const, text },
  value,
});

/** An event card's buttons: Report and Watch, and Promo for a promo editor; a cancelled event's, Report alone. */
function cardActions(event: TicketingEvent, promo: boolean): Block {
  const open = event.status !== 'cancelled';
  return {
    type: 'actions',
    elements: [
      button(PICK_REPORT_ACTION, 'Report', event.id),
      ...(open ? [button(WATCH_FOR_EVENT_ACTION, 'Watch', event.id)] : []),
      ...(open && promo ? [button(PROMO_FOR_EVENT_ACTION, 'Promo', event.id)] : []),
    ],
  };
}

/** Events a message names, a card each, with Report, Watch and (for promo editors) Promo buttons; or why none. */
export function namedEventsMessage(input: {
  events: readonly TicketingEvent[];
  asOf: number;
  promo: boolean;
}): SlackMessage {
  if (input.events.length === 0) {
    const text = md`:mag: This message names no event I know: no event page link, event id or exact event name.`;
    return { text, blocks: [mrkdwnSection(text), context(asOfLine(input.asOf))] };
  }
  const blocks: Block[] = [];
  for (const event of input.events) blocks.push(...eventSection(event), cardActions(event, input.promo));
  blocks.push(context(asOfLine(input.asOf)));
  const names = input.events.map((event) => eventPlainTitle(event));
  return { text: shorten(md`Events in this message: ${joinMrkdwn(names, md`, `)}`, LIMITS.fallbackText), blocks };
}

/**
 * A command a choice between events finishes: each event's button (labelled `verb`) carries
 * `command(eventId)`, the command as typed with that event, the rest of it unchanged.
 */
export interface FinishChoice {
  verb: string;
  command: (eventId: string) => string;
}

/**
 * Several events match the words: a short list, each with a button that shows its card, or that
 * finishes the command the words came from with that event. `heading`: the question in other
 * words than "N events match ...: which one?".
 */
export function eventChoicesMessage(options: {
  events: readonly TicketingEvent[];
  query: string;
  action: 'show' | FinishChoice;
  asOf: number;
  /** How many match in all, how many of those are upcoming and how many cancelled, when more match than are shown. */
  counts?: { total: number; upcoming: number; cancelled?: number | undefined } | undefined;
  heading?: Mrkdwn | undefined;
}): SlackMessage {
  const shownEvents = options.events.slice(0, 10);
  const finish = options.action === 'show' ? undefined : options.action;
  // A command too long to carry on a button (Slack takes 2,000 characters) falls back to Show.
  const carried = finish && shownEvents.every((event) => finish.command(event.id).length <= LIMITS.buttonValue);
  const choiceButton = (event: TicketingEvent) =>
    finish && carried
      ? button(FINISH_COMMAND_ACTION, clip(finish.verb, 30), finish.command(event.id))
      : button(PICK_SHOW_ACTION, 'Show', event.id);
  const total = options.counts?.total ?? options.events.length;
  const title = md`${total} event${total === 1 ? md`` : md`s`} match${total === 1 ? md`es` : md``} "${clip(options.query, 60)}"`;
  // One match is no choice: it is listed with its button, no question asked.
  const blocks: Block[] = [mrkdwnSection(options.heading ?? (total === 1 ? md`${title}:` : md`${title}: which one?`))];
  if (finish && !carried)
    blocks.push(context(md`Your command is too long to carry on a button: type it again with the event's id.`));
  if (options.counts) {
    const { upcoming } = options.counts;
    const cancelled = options.counts.cancelled ?? 0;
    const over = total - upcoming - cancelled;
    const shown = Math.min(options.events.length, 10);
    blocks.push(
      context(
        md`${upcoming} upcoming${over > 0 ? md`, ${over} over` : md``}${cancelled > 0 ? md`, ${cancelled} cancelled` : md``}; upcoming first${shown < total ? md`, the first ${shown} shown: add words to narrow it` : md``}.`,
      ),
    );
  }
  for (const event of shownEvents) {
    // Each row says its own status (a cancelled one among the rest), as the event's card does.
    const badge = statusBadge(event);
    const title = badge ? md`*${eventTitle(event)}*  ${badge}` : md`*${eventTitle(event)}*`;
    blocks.push({
      type: 'section',
      text: { type: 'mrkdwn', text: md`${title}\n:calendar: ${clip(describeEventTime(event), 300)}` },
      accessory: choiceButton(event),
    });
  }
  blocks.push(context(asOfLine(options.asOf)));
  return { text: options.heading ? shorten(options.heading, LIMITS.fallbackText) : title, blocks };
}

/** Nothing matched an id or words; says how fresh the list it looked in is. */
export function noEventMessage(options: { target: string; asOf: number; refreshPeriodMs: number }): SlackMessage {
  const minutes = Math.ceil(options.refreshPeriodMs / 60_000);
  const text = md`:mag: No event matches ${code(options.target, 120)}. Try \`/events find <words>\` or \`/events list\`.`;
  return {
    text,
    blocks: [mrkdwnSection(text), context(md`${asOfLine(options.asOf)}; it is refreshed about every ${minutes} min.`)],
  };
}

export interface EventListOptions {
  title: Mrkdwn;
  /** Each with its card's buttons. */
  events: TicketingEvent[];
  /** The reader is a promo editor: each event also gets a Promo button. */
  promo?: boolean | undefined;
  /** The "Next" button's value, when there is a next page. */
  nextValue?: string | undefined;
  /** The "Previous" button's value, when there is a page before. */
  previousValue?: string | undefined;
  /** Shown when there are no events. */
  emptyText?: Mrkdwn;
  /** 1-based page number, for the footer. */
  page?: number;
  /** A last line (e.g. how fresh the list is). */
  footer?: Mrkdwn;
}

export const NEXT_PAGE_ACTION = 'events_next_page';
export const PREVIOUS_PAGE_ACTION = 'events_previous_page';

/**
 * `/events list`: a page of events with "Previous" and "Next" buttons that carry where the page
 * before and the next page start.
 */
export function eventListMessage(options: EventListOptions): SlackMessage {
  const blocks: Block[] = [header(options.title)];
  if (options.events.length === 0) {
    blocks.push(mrkdwnSection(options.emptyText ?? md`No upcoming events.`));
    if (options.footer) blocks.push(context(options.footer));
    return { text: md`${options.title}: none`, blocks };
  }
  // Three blocks an event (with its buttons), plus header, footer and actions: never past the 50-block limit.
  const room = Math.floor((LIMITS.messageBlocks - 4) / 3);
  const shown = options.events.slice(0, room);
  for (const event of shown) blocks.push(...eventSection(event), cardActions(event, options.promo === true));
  const hidden = options.events.length - shown.length;
  if (hidden > 0) blocks.push(context(md`...and ${hidden} more`));
  if (options.footer) blocks.push(context(options.footer));
  const pages = [
    ...(options.previousValue ? [button(PREVIOUS_PAGE_ACTION, 'Previous', options.previousValue)] : []),
    ...(options.nextValue ? [button(NEXT_PAGE_ACTION, 'Next', options.nextValue)] : []),
  ];
  if (pages.length > 0) blocks.push({ type: 'actions', elements: pages });
  const first = shown[0];
  const summary = options.page
    ? md`${options.title}: ${plural(options.events.length, 'event')}, page ${options.page}`
    : md`${options.title}: ${plural(options.events.length, 'event')}`;
  return { text: first ? md`${summary}. First: ${eventPlainTitle(first)}` : summary, blocks };
}
