import type { App } from '@slack/bolt';
import { eventLabel } from '../../../render/event-blocks.js';
import { ENTITY_PROMO_ACTION, ENTITY_REPORT_ACTION, ENTITY_WATCH_ACTION } from '../../../render/event-entity.js';
import type { TicketingEvent } from '../../../ticketing/schemas.js';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { openPromoModal } from '../../modals/modal-openers.js';
import { privateAnswer } from '../../modals/private-answer.js';
import { ackFirst } from '../../replies/ack-first.js';
import { buttonValue } from '../../replies/button-value.js';
import { askForReport } from '../../reports/ask-for-report.js';
import { openWatchFormForEvent } from './watch-form-for-event.js';

/**
 * A flexpane's buttons (an event's Work Object, opened by one person): Report sends the report to
 * the person's DM with the bot (a flexpane has no conversation to answer in); Watch opens the watch
 * form for them alone; Change promo quantity, for promo editors, opens the promo form with the
 * event picked, which leads to the usual confirmation.
 */
export function registerEntityActions(app: App, deps: SlackDeps): void {
  const eventOf = async (id: string): Promise<TicketingEvent | undefined> =>
    deps.catalog.current()?.byId.get(id) ??
    (await deps.catalog.lookup(id, deps.interactive()).catch(() => undefined))?.event;

  app.action(ENTITY_REPORT_ACTION, async ({ ack, action, body, client, context }) => {
    await ackFirst(ack);
    const userId = body.user.id;
    const event = await eventOf(buttonValue(action).slice(0, 100));
    // A flexpane has no conversation: the answers go to the person's DM with the bot.
    const respond = privateAnswer(client, { channelId: undefined }, userId);
    if (!event) {
      await respond({ text: 'That event is no longer in the event list.' });
      return;
    }
    await askForReport(deps, {
      teamId: context.teamId ?? context.enterpriseId,
      respond,
      client,
      channelId: userId,
      userId,
      eventId: event.id,
      label: eventLabel(event),
    });
  });

  app.action(ENTITY_WATCH_ACTION, async ({ ack, action, body, client }) => {
    await ackFirst(ack);
    const triggerId = 'trigger_id' in body ? body.trigger_id : undefined;
    const event = await eventOf(buttonValue(action).slice(0, 100));
    if (!triggerId || !event) return;
    // No conversation: the watch is the person's own (their DM with the bot).
    await openWatchFormForEvent(deps, client, {
      triggerId,
      channelId: undefined,
      personal: true,
      event,
      userId: body.user.id,
    });
  });

  app.action(ENTITY_PROMO_ACTION, async ({ ack, action, body, client }) => {
    await ackFirst(ack);
    const triggerId = 'trigger_id' in body ? body.trigger_id : undefined;
    if (!triggerId) return;
    // The form checks the editor again on submit, as from any other door.
    const event = await eventOf(buttonValue(action).slice(0, 100));
    await openPromoModal(deps, client, { triggerId, channelId: undefined, event });
  });
}
