import type { RespondFn, webApi } from '@slack/bolt';
import type { PromoDeps, ProposeResult } from '../../promo/promo-changes.js';
import type { PromoCodeSources } from '../../promo/promo-codes.js';
import { promoCodeSources } from '../../promo/request-promo-change.js';
import { type SlackMessage, warningMessage } from '../../render/block-kit.js';
import { noEventMessage } from '../../render/event-blocks.js';
import {
  confirmationRefusedMessage,
  type PromoConfirmOptions,
  type PromoNow,
  promoConfirmMessage,
} from '../../render/promo-blocks.js';
import type { SlackDeps } from '../deps/slack-deps.js';
import { respondPrivately } from '../replies/respond-safely.js';
import { userMessageFor } from '../replies/user-message.js';

/** The promo use cases' dependencies for one Slack request (editors are checked with its client). */
export function promoDeps(deps: SlackDeps, client: webApi.WebClient): PromoDeps {
  return {
    ticketing: deps.ticketing,
    events: deps.catalog,
    pending: deps.pending,
    activity: deps.activity,
    record: deps.reports,
    isEditor: (userId) => deps.editors.allows(userId, client),
    interactive: deps.interactive,
    clock: deps.clock,
    logger: deps.logger,
  };
}

/** What the person sees after asking for a promo change, from a command or from the modal. */
export function proposalMessage(
  deps: SlackDeps,
  result: ProposeResult,
  eventId: string,
  /** The person's right to the code's figures (`showFigures` for them, privately). */
  mayShow: (figures: PromoNow) => PromoConfirmOptions['figures'],
): SlackMessage {
  switch (result.kind) {
    case 'confirm':
      return promoConfirmMessage({
        event: result.event,
        promoId: result.change.promoId,
        quantity: result.change.quantity,
        code: result.change.code,
        figures: mayShow({ previousQuantity: result.change.previousQuantity, redeemed: result.change.redeemed }),
        changeId: result.change.id,
        validForMinutes: Math.round(deps.pending.ttlMs / 60_000),
      });
    case 'not-editor':
      return confirmationRefusedMessage('not-editor');
    case 'no-event':
      return noEventMessage({
        target: eventId,
        asOf: result.asOf,
        refreshPeriodMs: deps.catalog.periodMs,
      });
    case 'failed':
      return warningMessage(userMessageFor(result.error));
  }
}

/** Where the codes of an event's promos are read for `userId` (see `promoCodeSources`). */
export function promoCodeSourcesFor(deps: SlackDeps, userId: string): PromoCodeSources {
  return promoCodeSources(deps.reports, deps.promoCodes, userId);
}

/** How a person is answered along a promo request: a notice while they wait, then what follows. */
export interface PromoReply {
  /** While a report is fetched for the code. */
  progress(message: SlackMessage): Promise<void>;
  /** The answer: the confirmation (`confirmation`), or why there is none. */
  answer(message: SlackMessage, options?: { confirmation?: boolean }): Promise<void>;
}

/**
 * Answers through `respond` (a command's or a button's response_url): what follows a notice
 * replaces it, so no "fetching" message is left behind; `replaceFirst`: the first answer replaces
 * the message whose button was clicked.
 */
export function respondReply(deps: SlackDeps, respond: RespondFn, replaceFirst = false): PromoReply {
  let replace = replaceFirst;
  const send = async (message: SlackMessage) => {
    await respondPrivately(respond, message, deps.logger, replace ? { replace_original: true } : {});
    replace = true;
  };
  return { progress: send, answer: send };
}
