import type { App } from '@slack/bolt';
import { plainMessage } from '../../../render/block-kit.js';
import { NEXT_PAGE_ACTION, PREVIOUS_PAGE_ACTION } from '../../../render/event-blocks.js';
import { md } from '../../../render/mrkdwn.js';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { ackFirst } from '../../replies/ack-first.js';
import { buttonValue } from '../../replies/button-value.js';
import { respondPrivately } from '../../replies/respond-safely.js';
import { decodePosition, showUpcomingPage } from '../commands/upcoming-page.js';

/** The "Next" and "Previous" buttons of `/events list`: another page of the same sorted, filtered list. */
export function registerNextPageAction(app: App, deps: SlackDeps): void {
  const pageActions = new RegExp(`^(${NEXT_PAGE_ACTION}|${PREVIOUS_PAGE_ACTION})$`);
  app.action({ type: 'block_actions', action_id: pageActions }, async ({ ack, respond, action, body, client }) => {
    await ackFirst(ack);
    const raw = buttonValue(action);
    const position = raw === '' ? undefined : decodePosition(raw);
    if (!position) {
      await respondPrivately(
        respond,
        plainMessage(md`This list has expired. Run \`/events list\` again.`),
        deps.logger,
        {
          replace_original: true,
        },
      );
      return;
    }
    await showUpcomingPage(deps, { respond, client, userId: body.user.id }, position, true);
  });
}
