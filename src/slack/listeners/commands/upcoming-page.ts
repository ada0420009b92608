import type { RespondFn, webApi } from '@slack/bolt';
import { closeEvents } from '../../../catalog/event-search.js';
import {
  DAY_RANGES,
  type DayRange,
  type ListFilter,
  parseDayRange,
  upcomingEvents,
} from '../../../catalog/find-events.js';
import { warningMessage } from '../../../render/block-kit.js';
import { asOfLine, eventListMessage, searchedForNote } from '../../../render/event-blocks.js';
import { clip, code, joinMrkdwn, type Mrkdwn, md } from '../../../render/mrkdwn.js';
import type { TicketingEvent } from '../../../ticketing/schemas.js';
import { personZone } from '../../deps/person-zone.js';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { respondPrivately } from '../../replies/respond-safely.js';
import { userMessageFor } from '../../replies/user-message.js';
import { nameOrId } from './no-event-answer.js';

/**
 * What the Next and Previous buttons carry: where that page starts, named for whoever reads it
 * later. In the button's value, so whichever replica gets the click reads it with no store.
 */
export interface ListPosition {
  /** How many upcoming events earlier pages showed. */
  offset: number;
  /** 1-based number of the page. */
  page: number;
  range?: DayRange | undefined;
  words?: string | undefined;
}

/**
 * The Next button's value. The parser refuses words past `MAX_SEARCH_TEXT` (and search ignores
 * longer ones), so it stays far under Slack's 2,000 characters.
 */
function encodePosition(position: ListPosition): string {
  return JSON.stringify(position);
}

export function decodePosition(text: string): ListPosition | undefined {
  try {
    const value = JSON.parse(text) as Partial<ListPosition>;
    if (!Number.isInteger(value.offset) || !Number.isInteger(value.page)) return undefined;
    const range = parseDayRange(value.range);
    const words = typeof value.words === 'string' ? value.words : undefined;
    return { offset: Math.max(0, value.offset as number), page: Math.max(1, value.page as number), range, words };
  } catch {
    return undefined;
  }
}

/** Most names an empty list offers instead. */
const MAX_NAMES = 3;

/** An empty list whose words are close to upcoming events' names: "did you mean", with the list to type. */
function didYouMeanList(closest: readonly TicketingEvent[], range: DayRange | undefined): Mrkdwn {
  const names = [...new Set(closest.flatMap((event) => (event.name ? [event.name] : [])))].slice(0, MAX_NAMES);
  const [first] = closest;
  const typed = first
    ? md` Type ${code(['/events list', ...(range ? [range] : []), nameOrId(first)].join(' '), 300)}.`
    : md``;
  return md`No upcoming events match. Did you mean ${joinMrkdwn(
    names.map((name) => code(name, 120)),
    md` or `,
  )}?${typed}`;
}

const RANGE_TITLES: Record<DayRange, string> = { today: 'today', tomorrow: 'tomorrow', week: 'this week' };

/**
 * `/events list` and its Next and Previous buttons: upcoming events soonest first across the whole catalog,
 * whatever order the API lists them in, a page at a time, visible only to the caller.
 */
export async function showUpcomingPage(
  deps: SlackDeps,
  slack: { respond: RespondFn; client: webApi.WebClient; userId: string },
  position: ListPosition,
  replace: boolean,
): Promise<void> {
  const extra = replace ? { replace_original: true } : {};
  try {
    const snapshot = await deps.catalog.snapshot(deps.interactive());
    const filter: ListFilter = { range: position.range, words: position.words };
    const zone = position.range ? ((await personZone(slack.client, slack.userId)) ?? 'UTC') : 'UTC';
    const events = upcomingEvents(snapshot, filter, zone, deps.clock.now());
    const pageEvents = events.slice(position.offset, position.offset + deps.pageSize);
    const nextOffset = position.offset + pageEvents.length;
    const next = nextOffset < events.length ? { ...position, offset: nextOffset, page: position.page + 1 } : undefined;
    // Pages are pageSize long, so the page before starts pageSize earlier (never before the first).
    const previous =
      position.page > 1 && position.offset > 0
        ? { ...position, offset: Math.max(0, position.offset - deps.pageSize), page: position.page - 1 }
        : undefined;
    const what = position.range ? md`Upcoming events ${clip(RANGE_TITLES[position.range], 20)}` : md`Upcoming events`;
    const title = position.words ? md`${what} matching "${clip(position.words, 60)}"` : what;
    const promo = pageEvents.length > 0 && (await deps.editors.allows(slack.userId, slack.client).catch(() => false));
    const closest =
      events.length === 0 && position.words
        ? closeEvents(upcomingEvents(snapshot, { range: position.range }, zone, deps.clock.now()), position.words)
        : [];
    const message = eventListMessage({
      title: position.page === 1 ? title : md`${title} (page ${position.page})`,
      events: pageEvents,
      ...(closest.length > 0 ? { emptyText: didYouMeanList(closest, position.range) } : {}),
      promo,
      nextValue: next ? encodePosition(next) : undefined,
      previousValue: previous ? encodePosition(previous) : undefined,
      page: position.page,
      footer:
        position.words && !position.range && position.page === 1
          ? md`${searchedForNote(position.words, DAY_RANGES)} ${asOfLine(snapshot.asOf)}`
          : asOfLine(snapshot.asOf),
    });
    await respondPrivately(slack.respond, message, deps.logger, extra);
  } catch (error) {
    deps.logger.warn('Listing events failed', { error });
    await respondPrivately(slack.respond, warningMessage(userMessageFor(error)), deps.logger, extra);
  }
}
