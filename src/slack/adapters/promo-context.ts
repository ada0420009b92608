import type { RespondFn, webApi } from '@slack/bolt';
import type { PromoDeps, ProposeResult } from '../../promo/promo-changes.js';
import { type PromoCodeSources, type PromoRef, resolvePromo } from '../../promo/promo-codes.js';
import { type SlackMessage, warningMessage } from '../../render/block-kit.js';
import { noEventMessage } from '../../render/event-blocks.js';
import { code, md } from '../../render/mrkdwn.js';
import {
  confirmationRefusedMessage,
  type PromoConfirmOptions,
  type PromoNow,
  promoCodeNotNamed,
  promoConfirmMessage,
} from '../../render/promo-blocks.js';
import { fetchingReportMessage } from '../../render/report-blocks.js';
import type { SlackDeps } from '../deps/slack-deps.js';
import { respondPrivately } from '../replies/respond-safely.js';
import { restartingMessage, userMessageFor } from '../replies/user-message.js';
import { reportFiguresAtHand, reportFor } from '../reports/ask-for-report.js';

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

/**
 * Where the codes of an event's promos are read: the latest report at hand (a watch's last check,
 * a cache), the pairs remembered from earlier reports, or a report fetched for this in the
 * person's turn within the report limit (with replicas, in the shared queue, whichever replica
 * fetches it).
 */
export function promoCodeSources(deps: SlackDeps, userId: string): PromoCodeSources {
  return {
    known: deps.promoCodes,
    reportAtHand: (eventId) => reportFiguresAtHand(deps, eventId),
    fetchReport: (eventId, options) => reportFor(deps, eventId, userId, options),
  };
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

/** The promo code a change is about: its id, the code people know and its quantity now, when a report named them. */
export interface PromoTarget {
  id: string;
  code: string | undefined;
  previousQuantity: number | undefined;
  redeemed: number | undefined;
}

/**
 * The promo code's id, for a person who named it by id or by code; undefined once they have been
 * told why there is none (they wait for a report fetched for it, and are told so first).
 */
export async function promoTargetFor(
  deps: SlackDeps,
  reply: PromoReply,
  eventId: string,
  ref: PromoRef,
  userId: string,
): Promise<PromoTarget | undefined> {
  try {
    const resolved = await resolvePromo(promoCodeSources(deps, userId), eventId, ref, () =>
      reply.progress(
        fetchingReportMessage(
          'code' in ref
            ? md`to find promo code ${code(ref.code, 64)} and its quantity now`
            : md`to read the quantity of promo code ${code(ref.id, 64)} now`,
          deps.reportLimit,
        ),
      ),
    );
    if (resolved.kind === 'found')
      return {
        id: resolved.id,
        code: resolved.code,
        previousQuantity: resolved.previousQuantity,
        redeemed: resolved.redeemed,
      };
    await reply.answer(warningMessage(promoCodeNotNamed(resolved.code, resolved.known)));
  } catch (error) {
    deps.logger.info('Looking up a promo code failed', { error });
    const why = deps.work.stopping.aborted
      ? restartingMessage(md`the promo code was not looked up`)
      : userMessageFor(error);
    await reply.answer(warningMessage(why));
  }
  return undefined;
}
