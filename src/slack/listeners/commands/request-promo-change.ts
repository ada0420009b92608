import type { webApi } from '@slack/bolt';
import { targetText } from '../../../catalog/find-events.js';
import { type Shown, shownOrNone } from '../../../figures/may-show-figures.js';
import {
  type PromoRequest,
  type PromoRequestOutcome,
  requestPromoChange as promoRequest,
} from '../../../promo/request-promo-change.js';
import { type SlackMessage, warningMessage } from '../../../render/block-kit.js';
import { cancelledEventMessage } from '../../../render/cancelled-words.js';
import { eventChoicesMessage, eventLabel } from '../../../render/event-blocks.js';
import { missingCodeMessage } from '../../../render/missing-code-blocks.js';
import { code, joinMrkdwn, md } from '../../../render/mrkdwn.js';
import { confirmationRefusedMessage, type PromoNow, promoCodeNotNamed } from '../../../render/promo-blocks.js';
import { fetchingReportMessage } from '../../../render/report-blocks.js';
import type { TicketingEvent } from '../../../ticketing/schemas.js';
import { type PromoReply, promoCodeSourcesFor, promoDeps, proposalMessage } from '../../adapters/promo-context.js';
import { privateReader } from '../../deps/figures-reader.js';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { restartingMessage, userMessageFor } from '../../replies/user-message.js';
import { commandFor } from './command-parser.js';
import { nameOrId, noEventAnswer } from './no-event-answer.js';

export type { PromoRequest };

/**
 * A promo change asked for by `/events promo`, a choice's button or the promo form: the promo use
 * case (`promo/request-promo-change.ts`) finds the event and the code and proposes the change; this
 * answers what came of it (several events are a choice whose buttons carry the code and quantity,
 * finished by `finish-command.ts`).
 */
export async function requestPromoChange(
  deps: SlackDeps,
  client: webApi.WebClient,
  reply: PromoReply,
  request: PromoRequest,
): Promise<void> {
  const { promo } = request;
  const outcome = await requestPromoChangeFor(deps, client, request, () =>
    reply.progress(
      fetchingReportMessage(
        'code' in promo
          ? md`to find promo code ${code(promo.code, 64)} and its quantity now`
          : md`to read the quantity of promo code ${code(promo.id, 64)} now`,
        deps.reportLimit,
      ),
    ),
  );
  const message = await promoAnswer(deps, request, outcome);
  await reply.answer(message, { confirmation: outcome.kind === 'proposed' && outcome.result.kind === 'confirm' });
}

/** The promo use case for one Slack person (editors asked with `client`). */
function requestPromoChangeFor(
  deps: SlackDeps,
  client: webApi.WebClient,
  request: PromoRequest,
  onFetch?: () => Promise<void>,
): Promise<PromoRequestOutcome> {
  const sources = promoCodeSourcesFor(deps, request.userId);
  return promoRequest({ ...promoDeps(deps, client), catalog: deps.catalog, sources }, request, onFetch);
}

/** What the person reads of a promo request's outcome, privately. */
async function promoAnswer(
  deps: SlackDeps,
  request: PromoRequest,
  outcome: PromoRequestOutcome,
): Promise<SlackMessage> {
  const query = targetText(request.target);
  const asked = { kind: 'promo', target: request.target, promo: request.promo, quantity: request.quantity } as const;
  const action = { verb: 'Choose', command: (eventId: string) => commandFor(asked, eventId) };
  switch (outcome.kind) {
    case 'not-editor':
      return confirmationRefusedMessage('not-editor');
    case 'lookup-failed':
      return warningMessage(userMessageFor(outcome.error));
    case 'code-left-out':
      // The report's codes are figures: a guest or a stranger editor is not told them.
      return missingCodeMessage({
        eventName: eventLabel(outcome.event),
        codes: (await shownCodes(deps, request.userId, outcome.codes)) ?? [],
        command: (each) => commandFor({ ...asked, promo: { code: each } }, outcome.words),
      });
    case 'none': {
      const typed = (event: TicketingEvent) => commandFor(asked, nameOrId(event));
      return noEventAnswer(deps, { query, asOf: outcome.asOf, closest: outcome.closest, action, typed });
    }
    case 'choices':
      return eventChoicesMessage({ events: outcome.events, query, action, asOf: outcome.asOf });
    case 'cancelled':
      return cancelledEventMessage(eventLabel(outcome.event), 'promo');
    case 'code-did-you-mean':
      return codeDidYouMean(
        'code' in request.promo ? request.promo.code : '',
        await shownCodes(deps, request.userId, outcome.close),
        (each) => commandFor({ ...asked, promo: { code: each } }, query),
      );
    case 'code-not-named':
      // The codes the report names are figures, as in "did you mean": none for a guest or a stranger.
      return warningMessage(promoCodeNotNamed(outcome.code, await shownCodes(deps, request.userId, outcome.known)));
    case 'code-lookup-failed':
      return warningMessage(
        deps.work.stopping.aborted
          ? restartingMessage(md`the promo code was not looked up`)
          : userMessageFor(outcome.error),
      );
    case 'proposed': {
      // The code's quantity now and its redemptions are figures: a guest or a stranger editor sees none.
      const reader = await privateReader(deps.audience, request.userId);
      const mayShow = (figures: PromoNow) => shownOrNone(figures, reader, deps.figuresPolicy);
      return proposalMessage(deps, outcome.result, outcome.eventId, mayShow);
    }
  }
}

/** An event's known codes as the person may read them: none for a guest or a stranger editor. */
async function shownCodes(
  deps: SlackDeps,
  userId: string,
  codes: readonly string[],
): Promise<Shown<readonly string[]> | undefined> {
  return shownOrNone(codes, await privateReader(deps.audience, userId), deps.figuresPolicy);
}

/**
 * A code that is none of the event's known codes but close to some: "did you mean", with the
 * command to type (`typed`: the command after `/events` with a code in place); nothing changed.
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
