import type { RespondFn } from '@slack/bolt';
import { eventCardMessage } from '../../render/event-blocks.js';
import { plainMessage } from '../../render/promo-blocks.js';
import type { SlackDeps } from '../deps.js';
import { respondPrivately } from '../respond-safely.js';
import { userMessageFor } from '../user-message.js';

/** `/events show <eventId>`: the event's card, privately. */
export async function showEvent(deps: SlackDeps, respond: RespondFn, eventId: string): Promise<void> {
  try {
    const event = await deps.ticketing.findEvent(eventId, {
      ...deps.interactive(),
    });
    await respondPrivately(respond, eventCardMessage(event), deps.logger);
  } catch (error) {
    deps.logger.info('Showing an event failed', { eventId, error });
    await respondPrivately(respond, plainMessage(`:warning: ${userMessageFor(error)}`), deps.logger);
  }
}
