import type { App } from '@slack/bolt';
import { shownOrNone } from '../../../figures/may-show-figures.js';
import { PROMO_FOR_EVENT_ACTION, WATCH_FOR_EVENT_ACTION } from '../../../render/event-blocks.js';
import { md } from '../../../render/mrkdwn.js';
import { reportCurrency } from '../../../render/report-blocks.js';
import { conditionsOffered, defaultConditions } from '../../../watches/watch-condition.js';
import { privateReader } from '../../deps/figures-reader.js';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { openPromoModal, openWatchModal } from '../../modals/modal-openers.js';
import { ackFirst } from '../../replies/ack-first.js';
import { buttonValue } from '../../replies/button-value.js';
import { reportFiguresAtHand } from '../../reports/ask-for-report.js';
import { showEvent } from '../commands/show-event.js';

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
    const atHand = await reportFiguresAtHand(deps, event.id).catch(() => undefined);
    // What is offered carries the report's figures: only for someone the figures rule lets read them.
    const report = atHand && shownOrNone(atHand, await privateReader(deps.audience, body.user.id), deps.figuresPolicy);
    await openWatchModal(deps, client, {
      triggerId,
      channelId: body.channel?.id,
      personal: false,
      event,
      offered: report ? conditionsOffered(report) : [],
      ticked: report ? defaultConditions(report) : [],
      currency: report ? reportCurrency(report) : undefined,
      note: report
        ? md`Offered from the event's latest report: only what it holds. More in the box below.`
        : md`Type conditions below, or leave it empty for the usual ones: the event's report is read when you submit.`,
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
