import type { App, webApi } from '@slack/bolt';
import { showFigures, shownOrNone, type Withheld } from '../../../figures/may-show-figures.js';
import type { Logger } from '../../../logger.js';
import { cancelPromoChange, confirmPromoChange } from '../../../promo/promo-changes.js';
import { mrkdwnSection, plainMessage, type SlackMessage, warningMessage } from '../../../render/block-kit.js';
import { md } from '../../../render/mrkdwn.js';
import {
  confirmationRefusedMessage,
  PROMO_CANCEL_ACTION,
  PROMO_CONFIRM_ACTION,
  type PromoOutcome,
  promoAnnouncement,
  promoDoneMessage,
  promoFailedMessage,
  promoUncertainMessage,
  quantityChangedWords,
} from '../../../render/promo-blocks.js';
import { promoDeps, proposalMessage } from '../../adapters/promo-context.js';
import { conversationReader, privateReader } from '../../deps/figures-reader.js';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { ackFirst } from '../../replies/ack-first.js';
import { buttonValue } from '../../replies/button-value.js';
import { respondPrivately } from '../../replies/respond-safely.js';
import { countSlackError, slackErrorCode } from '../../replies/slack-errors.js';
import { userMessageFor } from '../../replies/user-message.js';

/**
 * Posts the announcement in the channel, if the figures rule lets its quantities go there (a
 * promo code's quantity is a figure: a Slack Connect channel does not hear it); true when posted,
 * false when the channel refuses it, `no-channel` when it was asked for outside any channel, why
 * not when the rule held it back.
 */
async function announce(
  deps: SlackDeps,
  client: webApi.WebClient,
  channelId: string,
  outcome: PromoOutcome,
  log: Logger,
): Promise<boolean | 'no-channel' | Withheld> {
  // Asked for from the shortcut: no channel to announce in, and none is guessed.
  if (!channelId) return 'no-channel';
  const gate = showFigures(
    outcome,
    await conversationReader(deps.audience, channelId, outcome.userId),
    deps.figuresPolicy,
  );
  if ('withheld' in gate) return gate.withheld;
  try {
    const message = promoAnnouncement(gate.shown);
    await client.chat.postMessage({ channel: channelId, text: message.text, blocks: message.blocks });
    return true;
  } catch (error) {
    countSlackError(deps.metrics, 'chat.postMessage', error);
    log.info('Could not announce the promo change', { slackError: slackErrorCode(error) });
    return false;
  }
}

/** Confirm and Cancel on a proposed promo change: hand over to the use cases, show their answer. */
export function registerPromoActions(app: App, deps: SlackDeps): void {
  app.action(PROMO_CANCEL_ACTION, async ({ ack, respond, body, action, client }) => {
    await ackFirst(ack);
    const result = await cancelPromoChange(promoDeps(deps, client), {
      changeId: buttonValue(action),
      userId: body.user.id,
    }).catch((error: unknown) => ({ kind: 'error' as const, error }));
    if (result.kind === 'error') {
      await respondPrivately(respond, warningMessage(userMessageFor(result.error)), deps.logger);
      return;
    }
    const message =
      result.kind === 'cancelled'
        ? plainMessage(md`Cancelled: nothing was changed.`)
        : confirmationRefusedMessage(result.refusal);
    // Only the asker's own confirmation is replaced; anyone else hears privately.
    const replace = result.kind === 'cancelled' || result.refusal === 'used';
    await respondPrivately(respond, message, deps.logger, replace ? { replace_original: true } : {});
  });

  app.action(PROMO_CONFIRM_ACTION, async ({ ack, respond, body, action, client }) => {
    await ackFirst(ack);
    const log = deps.logger.child({ action: PROMO_CONFIRM_ACTION, user: body.user.id });
    const result = await confirmPromoChange(promoDeps(deps, client), {
      changeId: buttonValue(action),
      userId: body.user.id,
    }).catch((error: unknown) => ({ kind: 'error' as const, error }));
    if (result.kind === 'error') {
      // The store could not be read or the claim not taken: nothing was sent to the service.
      log.error('A promo confirmation could not be processed', { error: result.error });
      await respondPrivately(respond, promoFailedMessage(userMessageFor(result.error)), log);
      return;
    }
    if (result.kind === 'refused') {
      const replace = result.refusal === 'expired' || result.refusal === 'used';
      await respondPrivately(
        respond,
        confirmationRefusedMessage(result.refusal),
        log,
        replace ? { replace_original: true } : {},
      );
      return;
    }
    if (result.kind === 'changed') {
      // Asked again with the quantity now: the one clicked was shown a quantity written over since.
      const reader = await privateReader(deps.audience, body.user.id);
      const again = proposalMessage(
        deps,
        { kind: 'confirm', event: result.event, change: result.change },
        result.change.eventId,
        (figures) => shownOrNone(figures, reader, deps.figuresPolicy),
      );
      await respondPrivately(
        respond,
        { text: again.text, blocks: [mrkdwnSection(quantityChangedWords), ...again.blocks] },
        log,
        { replace_original: true },
      );
      return;
    }
    const { change } = result;
    const outcome: PromoOutcome = {
      userId: body.user.id,
      eventId: change.eventId,
      eventName: change.eventName,
      promoId: change.promoId,
      quantity: result.kind === 'updated' ? result.update.quantity : change.quantity,
      code: (result.kind === 'updated' ? result.update.promo.code : undefined) ?? change.code,
      previousQuantity: change.previousQuantity,
    };
    // The quantity before is a figure: a guest or a stranger editor is told only what they set.
    const toPerson = shownOrNone(outcome, await privateReader(deps.audience, body.user.id), deps.figuresPolicy);
    const told = toPerson ?? { ...outcome, previousQuantity: undefined };
    let message: SlackMessage;
    if (result.kind === 'updated') {
      message = promoDoneMessage(told, await announce(deps, client, change.channelId, outcome, log));
    } else if (result.kind === 'unknown') {
      message = promoUncertainMessage(told, userMessageFor(result.error));
    } else {
      message = promoFailedMessage(userMessageFor(result.error));
    }
    await respondPrivately(respond, message, log, { replace_original: true });
  });
}
