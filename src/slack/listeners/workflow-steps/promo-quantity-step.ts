import { isCancelled } from '../../../catalog/is-upcoming.js';
import type { Shown, Withheld } from '../../../figures/may-show-figures.js';
import { applyWorkflowPromoChange, type WorkflowPromoTarget } from '../../../promo/promo-changes.js';
import { parsePromoRef } from '../../../promo/promo-codes.js';
import { cancelledEventWords } from '../../../render/cancelled-words.js';
import { eventLabel } from '../../../render/event-blocks.js';
import { clip, code, md } from '../../../render/mrkdwn.js';
import { promoCodeNotNamed } from '../../../render/promo-blocks.js';
import { type PromoStepQuantities, promoStepSummary } from '../../../render/workflow-step-texts.js';
import { promoQuantityProblem } from '../../../ticketing/promo-quantity.js';
import type { TicketingEvent } from '../../../ticketing/schemas.js';
import { promoDeps } from '../../adapters/promo-context.js';
import { type StepOutputs, stepFailure } from '../../replies/finish-run.js';
import { userMessageFor } from '../../replies/user-message.js';
import { reportFor } from '../../reports/ask-for-report.js';
import { runFigures } from '../../reports/run-report.js';
import {
  conversationInput,
  eventForStepExactly,
  isProblem,
  textInput,
  userContextId,
  wholeNumberInput,
} from './step-inputs.js';
import { stepProblem, type WorkflowStep } from './workflow-step.js';

const TITLE = 'Set promo quantity';

/**
 * What every finished run outputs: the event, the promo code, the quantity asked for and the
 * outcome; the quantities before and now only as the figures rule let them through for the run.
 */
function outputs(
  event: TicketingEvent,
  target: WorkflowPromoTarget,
  requested: number,
  outcome: 'updated' | 'unknown',
  quantities: { shown: Shown<PromoStepQuantities> } | { withheld: Withheld },
): StepOutputs {
  const shown = 'shown' in quantities ? quantities.shown : undefined;
  return {
    event_id: event.id,
    event_name: eventLabel(event),
    promo_id: target.promoId,
    ...(target.code ? { promo_code: target.code } : {}),
    ...(shown?.previous === undefined ? {} : { previous_quantity: shown.previous }),
    ...(shown?.now === undefined ? {} : { new_quantity: shown.now }),
    requested_quantity: requested,
    outcome,
    summary: promoStepSummary(event, target, requested, outcome, quantities),
  };
}

/**
 * "Set promo quantity": the person running the workflow (Slack's `user_context`) must be a promo
 * editor; the promo code is named by its id or its code; the change is applied at once (the
 * workflow is the confirmation), audited as from a workflow. A write never answered completes with
 * outcome `unknown`, so the workflow can say so; a refused one fails.
 */
export const promoQuantityStep: WorkflowStep = {
  callbackId: 'set_promo_quantity',
  title: TITLE,
  async run(deps, run) {
    const userId = userContextId(run.inputs.run_by);
    if (!userId) {
      return stepFailure(
        md`The step needs to know who runs the workflow: start the workflow from a link, a shortcut or a button (or add a step a person clicks before it), so that Slack tells it.`,
      );
    }
    const quantity = wholeNumberInput(run.inputs, 'quantity', 'Quantity');
    if (quantity === undefined) return stepFailure(md`The step needs the quantity to set.`);
    if (isProblem(quantity)) return stepFailure(quantity.problem);
    const quantityProblem = promoQuantityProblem(quantity);
    if (quantityProblem) return stepFailure(clip(quantityProblem, 200));
    const promoText = textInput(run.inputs, 'promo');
    if (!promoText) return stepFailure(md`The step needs the promo code, or its id (promo_…).`);
    const promo = parsePromoRef(promoText);
    if ('problem' in promo) return stepFailure(md`Promo code ${code(promoText, 64)}: ${clip(promo.problem, 200)}.`);
    const event = await eventForStepExactly(deps, textInput(run.inputs, 'event'));
    if (isProblem(event)) return stepFailure(event.problem);
    if (isCancelled(event)) return stepFailure(cancelledEventWords(eventLabel(event), 'promo'));

    // Unattended, the code is looked up in a report read for this run: never one at hand from an
    // earlier read, nor a code remembered for weeks (it may have been recreated since).
    const forThisRun = {
      reportAtHand: async () => undefined,
      fetchReport: (eventId: string) => reportFor(deps, eventId, userId, { fresh: true }),
    };
    // Its outputs go where its later steps post them: the quantities only for a runner and a
    // conversation the figures rule allows, as the report step asks (the change itself is the
    // promo editor's to make either way).
    const where = { runBy: userId, postIn: conversationInput(run.inputs.post_in) };
    const quantitiesOf = (quantities: PromoStepQuantities) =>
      runFigures({ audience: deps.audience, policy: deps.figuresPolicy }, where, quantities);
    const result = await applyWorkflowPromoChange(promoDeps(deps, run.client), forThisRun, {
      userId,
      eventId: event.id,
      promo,
      quantity,
      executionId: run.executionId,
    });
    switch (result.kind) {
      case 'refused':
        return result.refusal === 'used'
          ? { kind: 'none' }
          : stepFailure(
              md`The person running this workflow is not a promo editor, so the promo code was not changed. An admin can add them, or a user group they are in, to PROMO_EDITORS.`,
            );
      case 'no-promo':
        return stepFailure(promoCodeNotNamed(result.code));
      case 'failed':
        return stepFailure(
          deps.work.stopping.aborted
            ? stepProblem(deps, TITLE, result.error)
            : md`The promo code was not changed: ${userMessageFor(result.error)}`,
        );
      case 'updated': {
        const quantities = await quantitiesOf({ previous: result.previousQuantity, now: result.update.quantity });
        return { kind: 'complete', outputs: outputs(event, result, quantity, 'updated', quantities) };
      }
      case 'unknown': {
        const quantities = await quantitiesOf({ previous: result.previousQuantity, now: undefined });
        return { kind: 'complete', outputs: outputs(event, result, quantity, 'unknown', quantities) };
      }
    }
  },
};
