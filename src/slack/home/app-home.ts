import type { App } from '@slack/bolt';
import { homeView } from '../../render/home-view.js';
import type { SlackDeps } from '../deps.js';
import { countSlackError } from '../slack-errors.js';
import { userMessageFor } from '../user-message.js';

/** App Home: the next events, the user's recent reports and promo changes, the API budget. */
export function registerAppHome(app: App, deps: SlackDeps): void {
  app.event('app_home_opened', async ({ event, client }) => {
    if (event.tab !== 'home') return;
    const log = deps.logger.child({ event: 'app_home_opened', user: event.user });
    const now = deps.clock.now();
    const [events, activity] = await Promise.all([
      deps.catalog
        .all(deps.interactive())
        .then((all) => all.filter((each) => each.endsAtMs > now).slice(0, 5))
        .catch((error: unknown) => ({ error: userMessageFor(error) })),
      deps.activity.recent(event.user).catch((error: unknown) => {
        log.warn('Could not read recent activity', { error });
        return { reports: [], promoChanges: [] };
      }),
    ]);
    const view = homeView({ events, activity, budget: await deps.ticketing.budget(), now });
    try {
      await client.views.publish({ user_id: event.user, view });
    } catch (error) {
      countSlackError(deps.metrics, 'views.publish', error);
      log.warn('Could not publish the home tab', { error });
    }
  });
}
