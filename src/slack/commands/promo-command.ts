import type { RespondFn, webApi } from '@slack/bolt';
import { type ProposeRequest, proposePromoChange } from '../../promo/promo-changes.js';
import { plainMessage } from '../../render/block-kit.js';
import { md } from '../../render/mrkdwn.js';
import { confirmationRefusedMessage, promoConfirmMessage } from '../../render/promo-blocks.js';
import type { SlackDeps } from '../deps.js';
import { promoDeps } from '../promo-context.js';
import { respondPrivately } from '../respond-safely.js';
import { userMessageFor } from '../user-message.js';

/** `/events promo <eventId> <promoId> <quantity>`: hands over to `proposePromoChange`, shows its answer. */
export async function handlePromoCommand(
  deps: SlackDeps,
  slack: { respond: RespondFn; client: webApi.WebClient },
  request: ProposeRequest,
): Promise<void> {
  const result = await proposePromoChange(promoDeps(deps, slack.client), request);
  const message =
    result.kind === 'confirm'
      ? promoConfirmMessage({
          event: result.event,
          promoId: result.change.promoId,
          quantity: result.change.quantity,
          changeId: result.change.id,
          validForMinutes: Math.round(deps.pending.ttlMs / 60_000),
        })
      : result.kind === 'not-editor'
        ? confirmationRefusedMessage('not-editor')
        : plainMessage(md`:warning: ${userMessageFor(result.error)}`);
  await respondPrivately(slack.respond, message, deps.logger);
}
