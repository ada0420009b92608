import type { RespondFn } from '@slack/bolt';
import { plainMessage } from '../render/block-kit.js';
import { eventListMessage } from '../render/event-blocks.js';
import { md } from '../render/mrkdwn.js';
import type { UpcomingPosition } from '../ticketing/upcoming-events.js';
import type { SlackDeps } from './deps.js';
import { respondPrivately } from './respond-safely.js';
import { userMessageFor } from './user-message.js';

/** What the Next button carries: where the next page starts, named for whoever reads it later. */
interface NextPageValue {
  /** The API cursor, verbatim (null: the first API page). */
  cursor: string | null;
  /** How far into that API page's upcoming events. */
  offset: number;
  /** 1-based number of the page the button opens. */
  page: number;
}

export function encodePosition(position: UpcomingPosition, page: number): string {
  const value: NextPageValue = { cursor: position.cursor ?? null, offset: position.offset, page };
  return JSON.stringify(value);
}

export function decodePosition(text: string): { position: UpcomingPosition; page: number } | undefined {
  try {
    const value = JSON.parse(text) as Partial<NextPageValue>;
    if (
      (typeof value.cursor !== 'string' && value.cursor !== null) ||
      !Number.isInteger(value.offset) ||
      !Number.isInteger(value.page)
    ) {
      return undefined;
    }
    return {
      position: { cursor: value.cursor ?? undefined, offset: value.offset as number },
      page: value.page as number,
    };
  } catch {
    return undefined;
  }
}

/** `/events list` and the "Next" button: one page of upcoming events, visible only to the caller. */
export async function showUpcomingPage(
  deps: SlackDeps,
  respond: RespondFn,
  position: UpcomingPosition,
  page: number,
  replace: boolean,
): Promise<void> {
  const extra = replace ? { replace_original: true } : {};
  try {
    const result = await deps.upcoming.page(position, {
      pageSize: deps.pageSize,
      ...deps.interactive(),
    });
    const nextValue = result.next ? deps.stash.put(encodePosition(result.next, page + 1)) : undefined;
    const message = eventListMessage({
      title: page === 1 ? md`Upcoming events` : md`Upcoming events (page ${page})`,
      events: result.events,
      nextValue,
      page,
      emptyText: result.next
        ? md`No upcoming events on these pages yet; press Next to keep looking.`
        : md`No upcoming events.`,
    });
    await respondPrivately(respond, message, deps.logger, extra);
  } catch (error) {
    deps.logger.warn('Listing events failed', { error });
    await respondPrivately(respond, plainMessage(md`:warning: ${userMessageFor(error)}`), deps.logger, extra);
  }
}
