import type { App } from '@slack/bolt';
import { plainMessage } from '../../render/block-kit.js';
import { NEXT_PAGE_ACTION } from '../../render/event-blocks.js';
import { md } from '../../render/mrkdwn.js';
import type { SlackDeps } from '../deps.js';
import { respondPrivately } from '../respond-safely.js';
import { decodePosition, showUpcomingPage } from '../upcoming-page.js';

/** The "Next" button of `/events list`: follows the API cursor it carries. */
export function registerNextPageAction(app: App, deps: SlackDeps): void {
  app.action(NEXT_PAGE_ACTION, async ({ ack, respond, action }) => {
    await ack();
    const raw = 'value' in action && typeof action.value === 'string' ? deps.stash.get(action.value) : undefined;
    const decoded = raw === undefined ? undefined : decodePosition(raw);
    if (!decoded) {
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
    await showUpcomingPage(deps, respond, decoded.position, decoded.page, true);
  });
}
