import type { RespondFn, webApi } from '@slack/bolt';
import { type ProposeRequest, proposePromoChange } from '../../promo/promo-changes.js';
import type { SlackDeps } from '../deps.js';
import { promoDeps, proposalMessage } from '../promo-context.js';
import { respondPrivately } from '../respond-safely.js';

/** `/events promo <eventId> <promoId> <quantity>`: hands over to `proposePromoChange`, shows its answer. */
export async function handlePromoCommand(
  deps: SlackDeps,
  slack: { respond: RespondFn; client: webApi.WebClient },
  request: ProposeRequest,
): Promise<void> {
  const result = await proposePromoChange(promoDeps(deps, slack.client), request);
  await respondPrivately(slack.respond, proposalMessage(deps, result, request.eventId), deps.logger);
}
