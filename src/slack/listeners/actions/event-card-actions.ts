import type { App } from '@slack/bolt';
import { PROMO_FOR_EVENT_ACTION, WATCH_FOR_EVENT_ACTION } from '../../../render/event-blocks.js';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { openPromoModal } from '../../modals/modal-openers.js';
import { ackFirst } from '../../replies/ack-first.js';
import { buttonValue } from '../../replies/button-value.js';
import { showEvent } from '../commands/show-event.js';
import { openWatchFormForEvent } from './watch-form-for-event.js';

/**
 * An event card's Promo button: the promo form with its event picked (the form checks the editor).
 * Its Watch button: the watch form with its event picked, offering what the event's report at hand
 * holds (no report is read for it here: the form reads one when submitted, or when the event is
 * picked again). Its Report button is a choice's (`event-pick.ts`).
 */
export function registerEventCardActions(app: App, deps: SlackDeps): void {
  app.action(WATCH_FOR_EVENT_ACTION, async ({ ack, action, body, client, respond }) => {
    await ackFirst(ack);
    const triggerId = 'trigger_id' in body ? body.trigger_id : undefined;
    if (!triggerId) return;
    const eventId = buttonValue(action).slice(0, 100);
    const event =
      deps.catalog.current()?.byId.get(eventId) ??
      (await deps.catalog.lookup(eventId, deps.interactive()).catch(() => undefined))?.event;
    if (!event) {
      await showEvent(deps, respond, { id: eventId });
      return;
    }
    await openWatchFormForEvent(deps, client, {
      triggerId,
      channelId: body.channel?.id,
      personal: false,
      event,
      userId: body.user.id,
    });
  });

  app.action(PROMO_FOR_EVENT_ACTION, async ({ ack, action, body, client }) => {
    await ackFirst(ack);
    const eventId = buttonValue(action);
    const event = deps.catalog.current()?.byId.get(eventId);
    const triggerId = 'trigger_id' in body ? body.trigger_id : undefined;
    if (!triggerId) return;
    await openPromoModal(deps, client, { triggerId, channelId: body.channel?.id, event });
  });
}
