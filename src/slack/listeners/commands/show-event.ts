import type { RespondArguments, RespondFn, webApi } from '@slack/bolt';
import { type EventTarget, resolveEvent, targetText } from '../../../catalog/find-events.js';
import { warningMessage } from '../../../render/block-kit.js';
import { eventCardMessage, eventChoicesMessage } from '../../../render/event-blocks.js';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { respondPrivately } from '../../replies/respond-safely.js';
import { userMessageFor } from '../../replies/user-message.js';
import { nameOrId, noEventAnswer } from './no-event-answer.js';

/** Who reads a card: a promo editor's has a Promo button. */
export interface CardReader {
  userId: string;
  client: webApi.WebClient;
}

/** `/events show <id or words>`: the card of the one event meant, or a choice, or "none" (with a "did you mean"), privately. */
export async function showEvent(
  deps: SlackDeps,
  respond: RespondFn,
  target: EventTarget,
  extra: Partial<RespondArguments> = {},
  reader?: CardReader,
): Promise<void> {
  try {
    const resolved = await resolveEvent(deps.catalog, target, deps.interactive());
    const promo =
      resolved.kind === 'found' && reader
        ? await deps.editors.allows(reader.userId, reader.client).catch(() => false)
        : false;
    const message =
      resolved.kind === 'found'
        ? eventCardMessage(resolved.event, resolved.asOf, { promo })
        : resolved.kind === 'choices'
          ? eventChoicesMessage({
              events: resolved.events,
              query: targetText(target),
              action: 'show',
              asOf: resolved.asOf,
            })
          : noEventAnswer(deps, {
              query: targetText(target),
              asOf: resolved.asOf,
              closest: resolved.closest,
              action: 'show',
              typed: (event) => `show ${nameOrId(event)}`,
            });
    await respondPrivately(respond, message, deps.logger, extra);
  } catch (error) {
    deps.logger.info('Showing an event failed', { error });
    await respondPrivately(respond, warningMessage(userMessageFor(error)), deps.logger, extra);
  }
}
