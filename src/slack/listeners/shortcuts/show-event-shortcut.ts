import type { App } from '@slack/bolt';
import { eventsNamedIn } from '../../../catalog/events-in-text.js';
import { warningMessage } from '../../../render/block-kit.js';
import { namedEventsMessage } from '../../../render/event-blocks.js';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { ackFirst } from '../../replies/ack-first.js';
import { respondPrivately } from '../../replies/respond-safely.js';
import { userMessageFor } from '../../replies/user-message.js';

/** The message shortcut's callback id (manifest.yml: "Show event"). */
export const SHOW_EVENT_SHORTCUT = 'show_event_from_message';

type MessageLike = { text?: string; blocks?: unknown; attachments?: unknown };

/** What a message says, for finding the events it names: its text, and the text of its blocks. */
function messageText(message: MessageLike | undefined): string {
  if (!message) return '';
  const inBlocks: string[] = [];
  const walk = (value: unknown) => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) {
        if ((key === 'text' || key === 'url') && typeof inner === 'string') inBlocks.push(inner);
        else walk(inner);
      }
    }
  };
  walk(message.blocks);
  return [message.text ?? '', ...inBlocks].join('\n').slice(0, 40_000);
}

/** "Show event" on any message: the events it names, a private card each, with Report and Promo buttons. */
export function registerShowEventShortcut(app: App, deps: SlackDeps): void {
  app.shortcut(
    { callback_id: SHOW_EVENT_SHORTCUT, type: 'message_action' },
    async ({ ack, shortcut, respond, client }) => {
      await ackFirst(ack);
      try {
        const snapshot = await deps.catalog.snapshot(deps.interactive());
        const events = eventsNamedIn(messageText(shortcut.message as MessageLike), snapshot.events, deps.eventLinks);
        const promo = events.length > 0 && (await deps.editors.allows(shortcut.user.id, client).catch(() => false));
        await respondPrivately(respond, namedEventsMessage({ events, asOf: snapshot.asOf, promo }), deps.logger);
      } catch (error) {
        deps.logger.info('The Show event shortcut failed', { error });
        await respondPrivately(respond, warningMessage(userMessageFor(error)), deps.logger);
      }
    },
  );
}
