import type { WatchReader } from '../../watches/watch-figures.js';
import { type ConversationAudience, isConversationId, roomOf } from './conversation-audience.js';

/**
 * Who reads a watch's figures: a channel watch is read by its channel and speaks for the person
 * who set it (or who clicked); a personal one is read by that person alone.
 */
export function watchReader(audience: Pick<ConversationAudience, 'of' | 'person'>): WatchReader {
  return async (watch, person) => ({
    room:
      watch.personal || !isConversationId(watch.channel)
        ? { kind: 'private' }
        : roomOf(await audience.of(watch.channel, undefined, { members: watch.sharedConfirmed })),
    person: await audience.person(person ?? watch.setBy),
    chosenAnyway: watch.sharedConfirmed === true,
  });
}
