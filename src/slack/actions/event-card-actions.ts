import type { App } from '@slack/bolt';
import { PROMO_FOR_EVENT_ACTION } from '../../render/event-blocks.js';
import { ackFirst } from '../ack-first.js';
import type { SlackDeps } from '../deps.js';
import { openPromoModal } from '../modal-openers.js';

/** An event card's Promo button: the promo form with its event picked (the form checks the editor). */
export function registerEventCardActions(app: App, deps: SlackDeps): void {
  app.action(PROMO_FOR_EVENT_ACTION, async ({ ack, action, body, client }) => {
    await ackFirst(ack);
    const eventId = 'value' in action && typeof action.value === 'string' ? action.value : '';
    const event = deps.catalog.current()?.byId.get(eventId);
    const triggerId = 'trigger_id' in body ? body.trigger_id : undefined;
    if (!triggerId) return;
    await openPromoModal(deps, client, { triggerId, channelId: body.channel?.id, event });
  });
}
