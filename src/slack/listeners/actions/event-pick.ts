import type { App } from '@slack/bolt';
import { eventLabel, PICK_REPORT_ACTION, PICK_SHOW_ACTION } from '../../../render/event-blocks.js';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { ackFirst } from '../../replies/ack-first.js';
import { buttonValue } from '../../replies/button-value.js';
import { askForReport } from '../../reports/ask-for-report.js';
import { showEvent } from '../commands/show-event.js';

/** The buttons of a choice between several matching events: show the card, or request the report. */
export function registerEventPickActions(app: App, deps: SlackDeps): void {
  app.action(PICK_SHOW_ACTION, async ({ ack, respond, action, body, client }) => {
    await ackFirst(ack);
    const reader = { userId: body.user.id, client };
    await showEvent(deps, respond, { id: buttonValue(action).slice(0, 100) }, { replace_original: true }, reader);
  });

  app.action(PICK_REPORT_ACTION, async ({ ack, respond, action, body, client, context }) => {
    await ackFirst(ack);
    const found = await deps.catalog
      .lookup(buttonValue(action).slice(0, 100), deps.interactive())
      .catch(() => undefined);
    const event = found?.event;
    if (!event) {
      await showEvent(deps, respond, { id: buttonValue(action).slice(0, 100) });
      return;
    }
    await askForReport(deps, {
      teamId: context.teamId ?? context.enterpriseId,
      respond,
      client,
      channelId: body.channel?.id ?? body.user.id,
      userId: body.user.id,
      responseUrl: 'response_url' in body ? body.response_url : undefined,
      eventId: event.id,
      label: eventLabel(event),
    });
  });
}
