import type { RespondFn, webApi } from '@slack/bolt';
import { type ProposeRequest, proposePromoChange } from '../../promo/promo-changes.js';
import type { PromoRef } from '../../promo/promo-codes.js';
import type { SlackDeps } from '../deps.js';
import { promoDeps, promoIdFor, proposalMessage } from '../promo-context.js';
import { respondPrivately } from '../respond-safely.js';
/** `/events promo <eventId> <code or promoId> <quantity>`: finds the code's id if need be, then `proposePromoChange`. */
export async function handlePromoCommand(
  deps: SlackDeps,
  slack: { respond: RespondFn; client: webApi.WebClient },
  request: Omit<ProposeRequest, 'promoId'> & { promo: PromoRef },
): Promise<void> {
  const { respond } = slack;
  const promo = promoDeps(deps, slack.client);
  // Only an editor's request may cost a report call; the use case checks again.
  if ('code' in request.promo && !(await promo.isEditor(request.userId))) {
    await respondPrivately(respond, proposalMessage(deps, { kind: 'not-editor' }, request.eventId), deps.logger);
    return;
  }
  const promoId = await promoIdFor(deps, respond, request.eventId, request.promo, request.userId);
  if (!promoId) return;
  const result = await proposePromoChange(promo, { ...request, promoId });
  await respondPrivately(respond, proposalMessage(deps, result, request.eventId), deps.logger);
}
