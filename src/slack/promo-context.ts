import type { RespondFn, webApi } from '@slack/bolt';
import type { PromoDeps, ProposeResult } from '../promo/promo-changes.js';
import { type PromoCodeSources, type PromoRef, resolvePromo } from '../promo/promo-codes.js';
import { type SlackMessage, warningMessage } from '../render/block-kit.js';
import { noEventMessage } from '../render/event-blocks.js';
import { code, md } from '../render/mrkdwn.js';
import { confirmationRefusedMessage, promoCodeNotNamed, promoConfirmMessage } from '../render/promo-blocks.js';
import { fetchingReportMessage } from '../render/report-blocks.js';
import { reportFiguresAtHand, reportFor } from './ask-for-report.js';
import type { SlackDeps } from './deps.js';
import { respondPrivately } from './respond-safely.js';
import { restartingMessage, userMessageFor } from './user-message.js';

/** The promo use cases' dependencies for one Slack request (editors are checked with its client). */
export function promoDeps(deps: SlackDeps, client: webApi.WebClient): PromoDeps {
  return {
    ticketing: deps.ticketing,
    events: deps.catalog,
    pending: deps.pending,
    activity: deps.activity,
    isEditor: (userId) => deps.editors.allows(userId, client),
    interactive: deps.interactive,
    clock: deps.clock,
    logger: deps.logger,
  };
}

/** What the person sees after asking for a promo change, from a command or from the modal. */
export function proposalMessage(deps: SlackDeps, result: ProposeResult, eventId: string): SlackMessage {
  switch (result.kind) {
    case 'confirm':
      return promoConfirmMessage({
        event: result.event,
        promoId: result.change.promoId,
        quantity: result.change.quantity,
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
 * a cache), or one fetched for this in the person's turn within the report
 * limit (with replicas, in the shared queue, whichever replica fetches it).
 */
export function promoCodeSources(deps: SlackDeps, userId: string): PromoCodeSources {
  return {
    reportAtHand: (eventId) => reportFiguresAtHand(deps, eventId),
    fetchReport: (eventId, options) => reportFor(deps, eventId, userId, options),
  };
}

/**
 * The promo code's id, for a person who named it by id or by code; undefined once they have been
 * told why there is none (they wait for a report fetched for it, and are told so first).
 */
export async function promoIdFor(
  deps: SlackDeps,
  respond: RespondFn,
  eventId: string,
  ref: PromoRef,
  userId: string,
): Promise<string | undefined> {
  try {
    const resolved = await resolvePromo(promoCodeSources(deps, userId), eventId, ref, async () => {
      await respondPrivately(
        respond,
        fetchingReportMessage(md`to find promo code ${code('code' in ref ? ref.code : '?', 64)}`, deps.reportLimit),
        deps.logger,
      );
    });
    if (resolved.kind === 'found') return resolved.id;
    await respondPrivately(respond, warningMessage(promoCodeNotNamed(resolved.code)), deps.logger);
  } catch (error) {
    deps.logger.info('Looking up a promo code failed', { error });
    const why = deps.work.stopping.aborted
      ? restartingMessage(md`the promo code was not looked up`)
      : userMessageFor(error);
    await respondPrivately(respond, warningMessage(why), deps.logger);
  }
  return undefined;
}
