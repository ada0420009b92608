import type { webApi } from '@slack/bolt';
import type { PromoDeps, ProposeResult } from '../promo/promo-changes.js';
import { type SlackMessage, warningMessage } from '../render/block-kit.js';
import { noEventMessage } from '../render/event-blocks.js';
import { confirmationRefusedMessage, promoConfirmMessage } from '../render/promo-blocks.js';
import type { SlackDeps } from './deps.js';
import { userMessageFor } from './user-message.js';

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
