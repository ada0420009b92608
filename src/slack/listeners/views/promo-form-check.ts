import type { webApi } from '@slack/bolt';
import { didYouMean } from '../../../catalog/did-you-mean.js';
import { isCancelled } from '../../../catalog/is-upcoming.js';
import { withinDeadline } from '../../../observability/within-deadline.js';
import { closeKnownCodes, type PromoRef, resolvePromo } from '../../../promo/promo-codes.js';
import { warningMessage } from '../../../render/block-kit.js';
import { cancelledEventFieldError } from '../../../render/cancelled-words.js';
import { eventLabel } from '../../../render/event-blocks.js';
import { FIELDS, promoModalView } from '../../../render/modal-views.js';
import { code, md } from '../../../render/mrkdwn.js';
import { promoCodeFieldError, promoCodeProblem } from '../../../render/promo-blocks.js';
import { fetchingReportMessage } from '../../../render/report-blocks.js';
import { MAX_PROMO_QUANTITY } from '../../../ticketing/promo-quantity.js';
import { type PromoReply, promoCodeSourcesFor } from '../../adapters/promo-context.js';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { userMessageFor } from '../../replies/user-message.js';
import { eventInMemory } from './event-in-memory.js';

/** How long a form's submission waits for the codes known for its event: Slack waits 3 s for the answer. */
const KNOWN_CODES_WAIT_MS = 1_000;

/**
 * The promo form's field errors found before its submission is answered, from what is known
 * without a report call: a cancelled event on the event's field, and a code close to one known
 * for the event (EARLYBRD) on the code's, naming the one meant. Slack keeps the form as typed.
 */
export async function promoFormErrors(
  deps: SlackDeps,
  form: { eventId: string; promo: PromoRef; userId: string },
): Promise<Record<string, string>> {
  const event = eventInMemory(deps, form.eventId);
  if (!event || event === 'unlisted') return {};
  if (isCancelled(event)) return { [FIELDS.event.block]: cancelledEventFieldError(eventLabel(event), 'promo') };
  if (!('code' in form.promo)) return {};
  const close = await withinDeadline(
    closeKnownCodes(promoCodeSourcesFor(deps, form.userId), event.id, form.promo),
    KNOWN_CODES_WAIT_MS,
    "The event's known promo codes",
  ).catch(() => []);
  return close.length > 0
    ? { [FIELDS.promo.block]: promoCodeFieldError(form.promo.code, close, eventLabel(event)) }
    : {};
}

/**
 * After **Review**, for a code nothing at hand names: it is looked up in the event's report (in
 * the person's turn, the form saying so) before the change is handed over. True: go on (found, or
 * not the form's to say: not an editor, an event not listed or cancelled). False once answered here: the
 * form back as typed with the code's problem under its field (by DM when the form was closed), or
 * why the report could not be read.
 */
export async function codeFoundAfterReview(
  deps: SlackDeps,
  client: webApi.WebClient,
  reply: PromoReply,
  form: {
    eventId: string;
    promo: PromoRef;
    quantityText: string;
    userId: string;
    viewId: string | undefined;
    privateMetadata: string;
  },
): Promise<boolean> {
  const { promo } = form;
  if (!('code' in promo)) return true;
  // Nothing is looked up for someone who may not change codes: the change says so.
  if (!(await deps.editors.allows(form.userId, client).catch(() => false))) return true;
  const known = eventInMemory(deps, form.eventId);
  const event =
    known ??
    (await deps.catalog
      .lookup(form.eventId, deps.interactive())
      .then((found) => found.event)
      .catch(() => undefined));
  // Not listed, cancelled, or the catalog unreadable: the change answers that, as for a command.
  if (!event || event === 'unlisted' || isCancelled(event)) return true;
  let resolved: Awaited<ReturnType<typeof resolvePromo>>;
  try {
    resolved = await resolvePromo(
      promoCodeSourcesFor(deps, form.userId),
      event.id,
      promo,
      () =>
        reply.progress(
          fetchingReportMessage(md`to find promo code ${code(promo.code, 64)} and its quantity now`, deps.reportLimit),
        ),
      false,
    );
  } catch (error) {
    deps.logger.info('Looking up the promo code of a form failed', { error });
    await reply.answer(warningMessage(userMessageFor(error)));
    return false;
  }
  if (resolved.kind === 'found') return true;
  const typed = {
    code: promo.code,
    quantity: form.quantityText,
    codeProblem: promoCodeProblem(promo.code, didYouMean(promo.code, resolved.known), resolved.known),
  };
  const back = form.viewId
    ? await client.views
        .update({ view_id: form.viewId, view: promoModalView(form.privateMetadata, MAX_PROMO_QUANTITY, event, typed) })
        .then(
          () => true,
          (error: unknown) => {
            deps.logger.info('Could not put the promo form back as typed; answering instead', { error });
            return false;
          },
        )
    : false;
  if (!back) await reply.answer(warningMessage(typed.codeProblem));
  return false;
}
