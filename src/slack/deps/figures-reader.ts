import { type FiguresPolicy, figuresWithheld, type Reader, type Withheld } from '../../figures/may-show-figures.js';
import { type ConversationAudience, isConversationId, roomOf } from './conversation-audience.js';

type Facts = Pick<ConversationAudience, 'of' | 'person'>;

/** Who reads an answer only `userId` sees (ephemeral, a response_url reply, App Home, their DM with the bot). */
export async function privateReader(audience: Facts, userId: string): Promise<Reader> {
  return { room: { kind: 'private' }, person: await audience.person(userId) };
}

/**
 * Why the figures rule holds figures back from `userId` wherever they read them (a guest, someone
 * of another organization, a person Slack could not say of), or undefined: asked before anything
 * that answers with what a report holds (a report, a watch's outcome).
 */
export async function heldFromPerson(
  audience: Facts,
  userId: string,
  policy: FiguresPolicy | undefined,
): Promise<Withheld | undefined> {
  return figuresWithheld(await privateReader(audience, userId), policy);
}

/**
 * Who reads a message posted in `conversation` at `userId`'s asking: the conversation's people (a
 * user id, where the bot writes to a person's own DM, counts as private; any other conversation,
 * a `D…` too, is asked about: a DM can be with someone of another organization) and the person
 * who asked.
 */
export async function conversationReader(
  audience: Facts,
  conversation: string,
  userId: string,
  options: { chosenAnyway?: boolean } = {},
): Promise<Reader> {
  const [room, person] = await Promise.all([
    isConversationId(conversation)
      ? audience.of(conversation, undefined, { members: options.chosenAnyway }).then(roomOf)
      : /^[UW][A-Z0-9]{2,}$/.test(conversation)
        ? Promise.resolve({ kind: 'private' } as const)
        : Promise.resolve({ kind: 'unknown', reason: 'not a conversation id' } as const),
    audience.person(userId),
  ]);
  return { room, person, chosenAnyway: options.chosenAnyway };
}
