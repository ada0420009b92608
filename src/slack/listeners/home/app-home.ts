import type { App } from '@slack/bolt';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { publishHome } from './home-tab.js';

/**
 * App Home: the next events, the user's recent reports and promo changes, their watches and their
 * own daily digest, the API budget. Published on `app_home_opened` and again after a digest button.
 */
export function registerAppHome(app: App, deps: SlackDeps): void {
  app.event('app_home_opened', async ({ event, client }) => {
    if (event.tab !== 'home') return;
    await publishHome(deps, client, event.user);
  });
}
