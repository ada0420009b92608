import type { Reader } from '../../figures/may-show-figures.js';
import { type ConversationAudience, isConversationId, roomOf } from './conversation-audience.js';

type Facts = Pick<ConversationAudience, 'of' | 'person'>;

/** Who reads an answer only `userId` sees (ephemeral, a response_url reply, App Home, their DM with the bot). */
export async function privateReader(audience: Facts, userId: string): Promise<Reader> {
  return { room: { kind: 'private' }, person: await audience.person(userId) };
}

/**
 * Who reads a message posted in `conversation` at `userId`'s asking: the conversation's people (a
 * user id, a person's own DM with the bot, counts as private) and the person who asked.
 */
export async function conversationReader(
  audience: Facts,
  conversation: string,
  userId: string,
  options: { chosenAnyway?: boolean } = {},
): Promise<Reader> {
  const [room, person] = await Promise.all([
    isConversationId(conversation) && !conversation.startsWith('D')
      ? audience.of(conversation).then(roomOf)
      : Promise.resolve({ kind: 'private' } as const),
    audience.person(userId),
  ]);
  return { room, person, chosenAnyway: options.chosenAnyway };
}
