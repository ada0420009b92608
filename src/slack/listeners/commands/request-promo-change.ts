import type { webApi } from '@slack/bolt';
import { type EventTarget, resolveEvent, targetText } from '../../../catalog/find-events.js';
import { proposePromoChange } from '../../../promo/promo-changes.js';
import type { PromoRef } from '../../../promo/promo-codes.js';
import { warningMessage } from '../../../render/block-kit.js';
import { eventChoicesMessage, noEventMessage } from '../../../render/event-blocks.js';
import { confirmationRefusedMessage } from '../../../render/promo-blocks.js';
import { userMessageFor } from '../../answers/user-message.js';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { type PromoReply, promoDeps, promoTargetFor, proposalMessage } from '../../domain-sides/promo-context.js';
import { commandFor } from './command-parser.js';

export interface PromoRequest {
  userId: string;
  channelId: string;
  /** The event by id or by words of its name. */
  target: EventTarget;
  promo: PromoRef;
  quantity: number;
}

/**
 * A promo change asked for by `/events promo`, a choice's button or the promo form: the event as
 * `show` finds it (one match goes on; several are a choice whose buttons carry the code and
 * quantity, finished by `finish-command.ts`; none says so), then the code's id, then `proposePromoChange`.
 */
export async function requestPromoChange(
  deps: SlackDeps,
  client: webApi.WebClient,
  reply: PromoReply,
  request: PromoRequest,
): Promise<void> {
  const promo = promoDeps(deps, client);
  // Before anything is looked up (a code may cost a report call); the use case checks again.
  if (!(await promo.isEditor(request.userId))) {
    await reply.answer(confirmationRefusedMessage('not-editor'));
    return;
  }
  let resolved: Awaited<ReturnType<typeof resolveEvent>>;
  try {
    resolved = await resolveEvent(deps.catalog, request.target, deps.interactive());
  } catch (error) {
    deps.logger.info('Finding the event of a promo change failed', { error });
    await reply.answer(warningMessage(userMessageFor(error)));
    return;
  }
  const query = targetText(request.target);
  if (resolved.kind === 'none') {
    await reply.answer(noEventMessage({ target: query, asOf: resolved.asOf, refreshPeriodMs: deps.catalog.periodMs }));
    return;
  }
  if (resolved.kind === 'choices') {
    const asked = { kind: 'promo', target: request.target, promo: request.promo, quantity: request.quantity } as const;
    const action = { verb: 'Choose', command: (eventId: string) => commandFor(asked, eventId) };
    await reply.answer(eventChoicesMessage({ events: resolved.events, query, action, asOf: resolved.asOf }));
    return;
  }
  const { event } = resolved;
  const target = await promoTargetFor(deps, reply, event.id, request.promo, request.userId);
  if (!target) return;
  const result = await proposePromoChange(promo, {
    userId: request.userId,
    channelId: request.channelId,
    eventId: event.id,
    promoId: target.id,
    quantity: request.quantity,
    code: target.code,
    previousQuantity: target.previousQuantity,
  });
  await reply.answer(proposalMessage(deps, result, event.id), { confirmation: result.kind === 'confirm' });
}
