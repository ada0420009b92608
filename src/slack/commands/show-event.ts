import type { RespondFn } from '@slack/bolt';
import { plainMessage } from '../../render/block-kit.js';
import { eventCardMessage } from '../../render/event-blocks.js';
import { md } from '../../render/mrkdwn.js';
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
    await respondPrivately(respond, plainMessage(md`:warning: ${userMessageFor(error)}`), deps.logger);
  }
}
