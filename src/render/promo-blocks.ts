import type { TicketingEvent } from '../ticketing/schemas.js';
import { type Block, context, mrkdwnSection, type SlackMessage } from './block-kit.js';
import { safeText } from './escape.js';
import { eventTitle } from './event-blocks.js';
import { describeEventTime } from './event-time.js';

export const PROMO_CONFIRM_ACTION = 'promo_confirm';
export const PROMO_CANCEL_ACTION = 'promo_cancel';

export interface PromoConfirmOptions {
  event: TicketingEvent;
  promoId: string;
  quantity: number;
  /** Carried by the Confirm button back to the action handler. */
  value: string;
}

/** Asks before changing anything, naming exactly what will change. */
export function promoConfirmMessage(options: PromoConfirmOptions): SlackMessage {
  const { event, promoId, quantity } = options;
  const what = `set promo code \`${safeText(promoId, 100)}\` on *${eventTitle(event)}* to *${quantity}* redemption(s)`;
  const blocks: Block[] = [
    mrkdwnSection(
      `:warning: You are about to ${what}.\nOnly the quantity changes; everything else about the code stays as it is.`,
    ),
    context(`:calendar: ${safeText(describeEventTime(event), 300)}`),
    {
      type: 'actions',
      elements: [
        {
          type: 'button',
          action_id: PROMO_CONFIRM_ACTION,
          style: 'primary',
          text: { type: 'plain_text', text: `Set to ${quantity}`.slice(0, 75) },
          value: options.value,
          confirm: {
            title: { type: 'plain_text', text: 'Change promo code?' },
            text: { type: 'mrkdwn', text: `This will ${what}.` },
            confirm: { type: 'plain_text', text: 'Change it' },
            deny: { type: 'plain_text', text: 'Keep it' },
          },
        },
        {
          type: 'button',
          action_id: PROMO_CANCEL_ACTION,
          text: { type: 'plain_text', text: 'Cancel' },
          value: 'cancel',
        },
      ],
    },
  ];
  return { text: `Confirm: set promo ${promoId} to ${quantity}`, blocks };
}

export interface PromoOutcome {
  userId: string;
  eventLabel: string;
  promoId: string;
  quantity: number;
  code?: string | undefined;
}

/** The channel announcement after a change went through. */
export function promoAnnouncement(outcome: PromoOutcome): SlackMessage {
  const code = outcome.code ? ` (${safeText(outcome.code, 50)})` : '';
  const line = `:ticket: <@${outcome.userId}> set promo code \`${safeText(outcome.promoId, 100)}\`${code} on *${safeText(outcome.eventLabel, 200)}* to *${outcome.quantity}* redemption(s).`;
  return { text: `Promo ${outcome.promoId} set to ${outcome.quantity}`, blocks: [mrkdwnSection(line)] };
}

/** What the person who confirmed sees in place of the confirmation. */
export function promoDoneMessage(outcome: PromoOutcome, announced: boolean): SlackMessage {
  const line = `:white_check_mark: Promo code \`${safeText(outcome.promoId, 100)}\` on *${safeText(outcome.eventLabel, 200)}* now allows *${outcome.quantity}* redemption(s).`;
  const blocks = [mrkdwnSection(line)];
  if (!announced)
    blocks.push(context("I couldn't announce it in this channel: invite me with `/invite @eventops` to post there."));
  return { text: `Promo ${outcome.promoId} set to ${outcome.quantity}`, blocks };
}

export function plainMessage(text: string): SlackMessage {
  return { text, blocks: [mrkdwnSection(text)] };
}
