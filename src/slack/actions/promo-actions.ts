import type { App } from '@slack/bolt';
import {
  PROMO_CANCEL_ACTION,
  PROMO_CONFIRM_ACTION,
  plainMessage,
  promoAnnouncement,
  promoDoneMessage,
} from '../../render/promo-blocks.js';
import { decodePromoValue, PROMO_REFUSAL } from '../commands/promo-command.js';
import type { SlackDeps } from '../deps.js';
import { respondPrivately } from '../respond-safely.js';
import { slackErrorCode, userMessageFor } from '../user-message.js';

/** Confirm and Cancel on a proposed promo change. */
export function registerPromoActions(app: App, deps: SlackDeps): void {
  const applied = new Set<string>();

  app.action(PROMO_CANCEL_ACTION, async ({ ack, respond }) => {
    await ack();
    await respondPrivately(respond, plainMessage('Cancelled: nothing was changed.'), deps.logger, {
      replace_original: true,
    });
  });

  app.action(PROMO_CONFIRM_ACTION, async ({ ack, respond, body, action, client }) => {
    await ack();
    const log = deps.logger.child({ action: PROMO_CONFIRM_ACTION, user: body.user.id });
    const raw = 'value' in action && typeof action.value === 'string' ? deps.stash.get(action.value) : undefined;
    const value = raw === undefined ? undefined : decodePromoValue(raw);
    if (!value) {
      await respondPrivately(
        respond,
        plainMessage(':warning: This confirmation has expired. Run the command again.'),
        log,
        {
          replace_original: true,
        },
      );
      return;
    }
    // The clicker may not be the person who asked (a shared message): check them too.
    if (!(await deps.editors.allows(body.user.id, client))) {
      await respondPrivately(respond, plainMessage(PROMO_REFUSAL), log);
      return;
    }
    if (applied.has(value.n)) return;
    applied.add(value.n);
    // Confirmations expire with their stash entry; the oldest nonces can go.
    if (applied.size > 10_000) applied.delete(applied.values().next().value as string);

    const channelId = body.channel?.id ?? '';
    const record = {
      at: new Date(deps.clock.now()).toISOString(),
      userId: body.user.id,
      channelId,
      eventId: value.e,
      promoId: value.p,
      quantity: value.q,
    };
    try {
      const result = await deps.ticketing.updatePromoQuantity(value.e, value.p, value.q, {
        ...deps.interactive(),
      });
      await deps.activity.recordPromoChange({ ...record, outcome: 'updated' }).catch((error: unknown) => {
        log.error('Could not record a promo change in the audit trail', { error });
      });
      log.info('Promo quantity changed', { eventId: value.e, promoId: value.p, quantity: result.quantity });
      const outcome = {
        userId: body.user.id,
        eventLabel: value.t,
        promoId: value.p,
        quantity: result.quantity,
        code: result.promo.code,
      };
      let announced = false;
      if (channelId) {
        try {
          const announcement = promoAnnouncement(outcome);
          await client.chat.postMessage({ channel: channelId, text: announcement.text, blocks: announcement.blocks });
          announced = true;
        } catch (error) {
          log.info('Could not announce the promo change', { slackError: slackErrorCode(error) });
        }
      }
      await respondPrivately(respond, promoDoneMessage(outcome, announced), log, { replace_original: true });
    } catch (error) {
      applied.delete(value.n);
      const reason = userMessageFor(error);
      log.warn('A promo change failed', { error });
      await deps.activity.recordPromoChange({ ...record, outcome: 'failed', error: reason }).catch(() => undefined);
      await respondPrivately(respond, plainMessage(`:warning: The promo code was not changed. ${reason}`), log, {
        replace_original: true,
      });
    }
  });
}
