import type { webApi } from '@slack/bolt';
import { type EventTarget, resolveEvent, targetText } from '../../../catalog/find-events.js';
import { isCancelled } from '../../../catalog/is-upcoming.js';
import { type Shown, shownOrNone } from '../../../figures/may-show-figures.js';
import { proposePromoChange } from '../../../promo/promo-changes.js';
import { closeKnownCodes, type PromoRef } from '../../../promo/promo-codes.js';
import { type SlackMessage, warningMessage } from '../../../render/block-kit.js';
import { cancelledEventMessage } from '../../../render/cancelled-words.js';
import { eventChoicesMessage, eventLabel } from '../../../render/event-blocks.js';
import { code, joinMrkdwn, md } from '../../../render/mrkdwn.js';
import { confirmationRefusedMessage, type PromoNow } from '../../../render/promo-blocks.js';
import type { TicketingEvent } from '../../../ticketing/schemas.js';
import {
  type PromoReply,
  promoCodeSources,
  promoDeps,
  promoTargetFor,
  proposalMessage,
} from '../../adapters/promo-context.js';
import { privateReader } from '../../deps/figures-reader.js';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { userMessageFor } from '../../replies/user-message.js';
import { commandFor } from './command-parser.js';
import { nameOrId, noEventAnswer } from './no-event-answer.js';
import { promoCodeLeftOut } from './promo-code-left-out.js';

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
  const leftOut = await promoCodeLeftOut(deps, request, resolved);
  if (leftOut) {
    await reply.answer(leftOut);
    return;
  }
  const query = targetText(request.target);
  const asked = { kind: 'promo', target: request.target, promo: request.promo, quantity: request.quantity } as const;
  const action = { verb: 'Choose', command: (eventId: string) => commandFor(asked, eventId) };
  if (resolved.kind === 'none') {
    const typed = (event: TicketingEvent) => commandFor(asked, nameOrId(event));
    await reply.answer(noEventAnswer(deps, { query, asOf: resolved.asOf, closest: resolved.closest, action, typed }));
    return;
  }
  if (resolved.kind === 'choices') {
    await reply.answer(eventChoicesMessage({ events: resolved.events, query, action, asOf: resolved.asOf }));
    return;
  }
  const { event } = resolved;
  if (isCancelled(event)) {
    await reply.answer(cancelledEventMessage(eventLabel(event), 'promo'));
    return;
  }
  // A code close to one known for the event (EARLYBRD): asked at once, not looked up in a report.
  const close = await closeKnownCodes(promoCodeSources(deps, request.userId), event.id, request.promo);
  // The code's quantity now and its redemptions are figures, and so are the report's codes: a
  // guest or a stranger editor sees none.
  const reader = await privateReader(deps.audience, request.userId);
  if ('code' in request.promo && close.length > 0) {
    const shownCodes = shownOrNone(close, reader, deps.figuresPolicy);
    await reply.answer(
      codeDidYouMean(request.promo.code, shownCodes, (each) => commandFor({ ...asked, promo: { code: each } }, query)),
    );
    return;
  }
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
    redeemed: target.redeemed,
  });
  const mayShow = (figures: PromoNow) => shownOrNone(figures, reader, deps.figuresPolicy);
  await reply.answer(proposalMessage(deps, result, event.id, mayShow), { confirmation: result.kind === 'confirm' });
}

/**
 * A code that is none of the event's known codes but close to some: "did you mean", with the
 * command to type (`typed`: the command after `/events` with a code in place); nothing changed.
 * `close` undefined: the figures rule holds the report's codes back from the person.
 */
function codeDidYouMean(
  typed: string,
  close: Shown<readonly string[]> | undefined,
  command: (code: string) => string,
): SlackMessage {
  if (!close)
    return warningMessage(
      md`No code ${code(typed, 64)} is known for this event. Check the code, or give its id, \`promo_…\`, instead. Nothing was changed.`,
    );
  const codes = joinMrkdwn(
    close.map((each) => code(each, 64)),
    md` or `,
  );
  const [first = typed] = close;
  return warningMessage(
    md`No code ${code(typed, 64)}; did you mean ${codes}? Type ${code(`/events ${command(first)}`, 300)}. Nothing was changed. (A code added since the event's last report is not known yet: give its id, \`promo_…\`, instead.)`,
  );
}
