import type { RespondFn, webApi } from '@slack/bolt';
import { respondReply } from '../../adapters/promo-context.js';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { type PromoRequest, requestPromoChange } from './request-promo-change.js';

/**
 * `/events promo <id or name> <code or promoId> <quantity>`, answered on its response_url;
 * `replaceFirst`: from a choice's button, whose message the first answer replaces.
 */
export function handlePromoCommand(
  deps: SlackDeps,
  slack: { respond: RespondFn; client: webApi.WebClient },
  request: PromoRequest,
  options: { replaceFirst?: boolean } = {},
): Promise<void> {
  return requestPromoChange(deps, slack.client, respondReply(deps, slack.respond, options.replaceFirst), request);
}
