import type { App } from '@slack/bolt';
import { shownOrNone } from '../../../figures/may-show-figures.js';
import { eventLabel } from '../../../render/event-blocks.js';
import { ENTITY_PROMO_ACTION, ENTITY_REPORT_ACTION, ENTITY_WATCH_ACTION } from '../../../render/event-entity.js';
import { md } from '../../../render/mrkdwn.js';
import { reportCurrency } from '../../../render/report-blocks.js';
import type { TicketingEvent } from '../../../ticketing/schemas.js';
import { conditionsOffered, defaultConditions } from '../../../watches/watch-condition.js';
import { privateReader } from '../../deps/figures-reader.js';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { openPromoModal, openWatchModal } from '../../modals/modal-openers.js';
import { privateAnswer } from '../../modals/private-answer.js';
import { ackFirst } from '../../replies/ack-first.js';
import { buttonValue } from '../../replies/button-value.js';
import { askForReport, reportFiguresAtHand } from '../../reports/ask-for-report.js';

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

  app.action(ENTITY_REPORT_ACTION, async ({ ack, action, body, client }) => {
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
    const atHand = await reportFiguresAtHand(deps, event.id).catch(() => undefined);
    // The form offers what the report holds: only to someone the figures rule lets read it.
    const report = atHand && shownOrNone(atHand, await privateReader(deps.audience, body.user.id), deps.figuresPolicy);
    // No conversation: the watch is the person's own (their DM with the bot).
    await openWatchModal(deps, client, {
      triggerId,
      channelId: undefined,
      personal: true,
      event,
      offered: report ? conditionsOffered(report) : [],
      ticked: report ? defaultConditions(report) : [],
      currency: report ? reportCurrency(report) : undefined,
      note: report
        ? md`Offered from the event's latest report: only what it holds. More in the box below.`
        : md`Type conditions below, or leave it empty for the usual ones: the event's report is read when you submit.`,
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
