import type { App } from '@slack/bolt';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { registerDigestHomeActions } from './digest-home-actions.js';
import { registerEntityActions } from './entity-actions.js';
import { registerEventCardActions } from './event-card-actions.js';
import { registerEventPickActions } from './event-pick.js';
import { registerFinishCommand } from './finish-command.js';
import { registerNextPageAction } from './next-page.js';
import { registerPromoActions } from './promo-actions.js';
import { registerSharedChannelActions } from './shared-channel-actions.js';
import { registerWatchChart } from './watch-chart.js';
import { registerWatchQuieting } from './watch-quieting.js';

/** The buttons on messages and in App Home (a modal's own actions live with the modal, in `views/`). */
export function registerActions(app: App, deps: SlackDeps): void {
  registerNextPageAction(app, deps);
  registerEventPickActions(app, deps);
  registerFinishCommand(app, deps);
  registerPromoActions(app, deps);
  registerEventCardActions(app, deps);
  registerDigestHomeActions(app, deps);
  registerSharedChannelActions(app, deps);
  registerWatchChart(app, deps);
  registerEntityActions(app, deps);
  registerWatchQuieting(app, deps);
}
