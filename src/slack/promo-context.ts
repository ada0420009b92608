import type { webApi } from '@slack/bolt';
import type { PromoDeps } from '../promo/promo-changes.js';
import type { SlackDeps } from './deps.js';

/** The promo use cases' dependencies for one Slack request (editors are checked with its client). */
export function promoDeps(deps: SlackDeps, client: webApi.WebClient): PromoDeps {
  return {
    ticketing: deps.ticketing,
    pending: deps.pending,
    activity: deps.activity,
    isEditor: (userId) => deps.editors.allows(userId, client),
    interactive: deps.interactive,
    clock: deps.clock,
    logger: deps.logger,
  };
}
