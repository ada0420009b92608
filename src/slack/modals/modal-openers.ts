import type { types, webApi } from '@slack/bolt';
import { promoModalView, reportModalView, type WatchModalInput, watchModalView } from '../../render/modal-views.js';
import { MAX_PROMO_QUANTITY } from '../../ticketing/promo-quantity.js';
import type { TicketingEvent } from '../../ticketing/schemas.js';
import type { SlackDeps } from '../deps/slack-deps.js';
import { countSlackError } from '../replies/slack-errors.js';

/** Where a modal was opened from: the channel its answers go to (none for a global shortcut). */
export interface ModalOrigin {
  channelId: string | undefined;
}

const encodeOrigin = (origin: ModalOrigin) => JSON.stringify({ channelId: origin.channelId ?? null });

/** The origin a modal carries in its `private_metadata`; anything unexpected means none. */
export function decodeOrigin(text: string | undefined): ModalOrigin {
  try {
    const value = JSON.parse(text ?? '{}') as { channelId?: unknown };
    const channelId =
      typeof value.channelId === 'string' && /^[CGD][A-Z0-9]+$/.test(value.channelId) ? value.channelId : undefined;
    return { channelId };
  } catch {
    return { channelId: undefined };
  }
}

type ModalRequest = { triggerId: string; channelId: string | undefined };

async function openModal(deps: SlackDeps, client: webApi.WebClient, triggerId: string, view: types.ModalView) {
  await client.views.open({ trigger_id: triggerId, view }).catch((error: unknown) => {
    countSlackError(deps.metrics, 'views.open', error);
    deps.logger.warn('Could not open a modal', { callbackId: view.callback_id, error });
  });
}

/** The promo form (from `/events promo`, the global shortcut, or an event card's Promo button with its event). */
export const openPromoModal = (
  deps: SlackDeps,
  client: webApi.WebClient,
  request: ModalRequest & { event?: TicketingEvent | undefined },
) =>
  openModal(deps, client, request.triggerId, promoModalView(encodeOrigin(request), MAX_PROMO_QUANTITY, request.event));

/** The report form (from `/events report` with nothing after it). */
export const openReportModal = (deps: SlackDeps, client: webApi.WebClient, request: ModalRequest) =>
  openModal(deps, client, request.triggerId, reportModalView(encodeOrigin(request)));

/**
 * The watch form (from `/events watch` with nothing after it, or an event card's Watch button with
 * its event and what its report offers); `--me` ticks "only for me".
 */
export const openWatchModal = (
  deps: SlackDeps,
  client: webApi.WebClient,
  request: ModalRequest & Omit<WatchModalInput, 'privateMetadata'>,
) => {
  const { triggerId, channelId, ...form } = request;
  return openModal(deps, client, triggerId, watchModalView({ ...form, privateMetadata: encodeOrigin({ channelId }) }));
};
