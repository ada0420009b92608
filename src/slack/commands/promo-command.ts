import { randomUUID } from 'node:crypto';
import type { RespondFn, webApi } from '@slack/bolt';
import { eventPlainTitle } from '../../render/event-blocks.js';
import { plainMessage, promoConfirmMessage } from '../../render/promo-blocks.js';
import type { SlackDeps } from '../deps.js';
import { respondPrivately } from '../respond-safely.js';
import { userMessageFor } from '../user-message.js';

/** What the Confirm button carries back: the change, and a nonce so a double click applies once. */
export interface PromoChangeValue {
  e: string;
  p: string;
  q: number;
  /** The event's title, for the announcement (already escaped by the renderer when shown). */
  t: string;
  n: string;
}

export function decodePromoValue(text: string): PromoChangeValue | undefined {
  try {
    const value = JSON.parse(text) as Partial<PromoChangeValue>;
    if (
      typeof value.e === 'string' &&
      typeof value.p === 'string' &&
      typeof value.t === 'string' &&
      typeof value.n === 'string' &&
      Number.isSafeInteger(value.q)
    ) {
      return value as PromoChangeValue;
    }
  } catch {
    // fall through
  }
  return undefined;
}

const REFUSAL =
  ":no_entry: Only promo editors can change promo codes. An admin can add you (or a user group you're in) to PROMO_EDITORS.";

/** `/events promo <eventId> <promoId> <quantity>`: checks who asks, then asks them to confirm. */
export async function proposePromoChange(
  deps: SlackDeps,
  request: {
    respond: RespondFn;
    client: webApi.WebClient;
    userId: string;
    eventId: string;
    promoId: string;
    quantity: number;
  },
): Promise<void> {
  const { respond } = request;
  if (!(await deps.editors.allows(request.userId, request.client))) {
    deps.logger.info('Refused a promo change from a non-editor', { user: request.userId });
    await respondPrivately(respond, plainMessage(REFUSAL), deps.logger);
    return;
  }
  try {
    const event = await deps.ticketing.findEvent(request.eventId, {
      ...deps.interactive(),
    });
    const value: PromoChangeValue = {
      e: event.id,
      p: request.promoId,
      q: request.quantity,
      t: eventPlainTitle(event).slice(0, 150),
      n: randomUUID(),
    };
    const message = promoConfirmMessage({
      event,
      promoId: request.promoId,
      quantity: request.quantity,
      value: deps.stash.put(JSON.stringify(value)),
    });
    await respondPrivately(respond, message, deps.logger);
  } catch (error) {
    deps.logger.info('Preparing a promo change failed', { error });
    await respondPrivately(respond, plainMessage(`:warning: ${userMessageFor(error)}`), deps.logger);
  }
}

export { REFUSAL as PROMO_REFUSAL };
