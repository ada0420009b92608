import type { RespondFn } from '@slack/bolt';
import { closeEvents, searchEvents } from '../../../catalog/event-search.js';
import { MAX_CHOICES } from '../../../catalog/find-events.js';
import { isCancelled, isListedUpcoming } from '../../../catalog/is-upcoming.js';
import { warningMessage } from '../../../render/block-kit.js';
import { eventChoicesMessage } from '../../../render/event-blocks.js';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { respondPrivately } from '../../replies/respond-safely.js';
import { userMessageFor } from '../../replies/user-message.js';
import { nameOrId, noEventAnswer } from './no-event-answer.js';

/**
 * `/events find <words>`: how many match in all, upcoming ones first, each with a Show button, or
 * with none the closest names ("did you mean"), privately.
 */
export async function handleFindCommand(deps: SlackDeps, respond: RespondFn, words: string): Promise<void> {
  try {
    const snapshot = await deps.catalog.snapshot(deps.interactive());
    // Upcoming ones first (not yet ended nor cancelled, as `list` counts them), each part best match first.
    const all = searchEvents(snapshot.events, words).map((m) => m.event);
    const now = deps.clock.now();
    const upcoming = all.filter((event) => isListedUpcoming(event, now));
    const ordered = [...upcoming, ...all.filter((event) => !isListedUpcoming(event, now))];
    const matches = ordered.slice(0, MAX_CHOICES);
    const message =
      matches.length === 0
        ? noEventAnswer(deps, {
            query: words,
            asOf: snapshot.asOf,
            closest: closeEvents(snapshot.events, words),
            action: 'show',
            typed: (event) => `find ${nameOrId(event)}`,
          })
        : eventChoicesMessage({
            events: matches,
            query: words,
            action: 'show',
            asOf: snapshot.asOf,
            counts: { total: all.length, upcoming: upcoming.length, cancelled: all.filter(isCancelled).length },
          });
    await respondPrivately(respond, message, deps.logger);
  } catch (error) {
    deps.logger.info('Finding events failed', { error });
    await respondPrivately(respond, warningMessage(userMessageFor(error)), deps.logger);
  }
}
