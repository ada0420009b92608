import type { webApi } from '@slack/bolt';
import type { SlackMessage } from '../../render/block-kit.js';
import { type PromoAnswerPlace, promoAnswerView, promoNotEditorView } from '../../render/promo-blocks.js';
import type { TicketingEvent } from '../../ticketing/schemas.js';
import type { PromoReply } from '../adapters/promo-context.js';
import type { SlackDeps } from '../deps/slack-deps.js';
import { countSlackError } from '../replies/slack-errors.js';
import { type ModalOrigin, openPromoModal } from './modal-openers.js';

/**
 * The promo form for a promo editor; anyone else is told so at once, in a view opened instead of
 * the form, rather than after filling it in.
 */
export async function openPromoFormFor(
  deps: SlackDeps,
  client: webApi.WebClient,
  request: { triggerId: string; channelId: string | undefined; userId: string; event?: TicketingEvent | undefined },
): Promise<void> {
  if (await deps.editors.allows(request.userId, client)) {
    await openPromoModal(deps, client, request);
    return;
  }
  await client.views.open({ trigger_id: request.triggerId, view: promoNotEditorView() }).catch((error: unknown) => {
    countSlackError(deps.metrics, 'views.open', error);
    deps.logger.warn('Could not tell a non-editor that the promo form is for editors', { error });
  });
}

/**
 * Answers a promo form submitted with **Review**: the answer goes to the channel it was opened
 * from (ephemeral), else, or when the channel refuses it, to the person's DM; the form, kept open
 * by the submission's ack, says where it went (`viewId`: that view).
 */
export function promoFormReply(
  deps: SlackDeps,
  client: webApi.WebClient,
  request: { origin: ModalOrigin; userId: string; viewId: string | undefined },
): PromoReply {
  const place: PromoAnswerPlace = { channelId: request.origin.channelId };
  const show = async (state: Parameters<typeof promoAnswerView>[1]) => {
    if (!request.viewId) return;
    // The person may have closed the form: nothing is lost, the answer is posted anyway.
    await client.views
      .update({ view_id: request.viewId, view: promoAnswerView(place, state) })
      .catch((error: unknown) => deps.logger.info('Could not update the promo form', { error }));
  };
  const post = async (message: SlackMessage) => {
    const body = { text: message.text, blocks: message.blocks };
    if (place.channelId) {
      try {
        await client.chat.postEphemeral({ channel: place.channelId, user: request.userId, ...body });
        return true;
      } catch (error) {
        countSlackError(deps.metrics, 'chat.postEphemeral', error);
        deps.logger.info('Could not answer a promo form in its channel; trying the DM', { error });
        place.channelRefused = place.channelId;
        place.channelId = undefined;
      }
    }
    try {
      await client.chat.postMessage({ channel: request.userId, ...body });
      return true;
    } catch (error) {
      countSlackError(deps.metrics, 'chat.postMessage', error);
      deps.logger.warn('Could not send the answer to a promo form', { error });
      return false;
    }
  };
  return {
    progress: () => show('fetching'),
    answer: async (message, options = {}) => {
      const posted = await post(message);
      await show(!posted ? 'failed' : options.confirmation ? 'confirmation' : 'answer');
    },
  };
}

/** The view the form's submission is acknowledged with: where the confirmation will be. */
export const promoFormAckView = (origin: ModalOrigin) => promoAnswerView({ channelId: origin.channelId }, 'preparing');
