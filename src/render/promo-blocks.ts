import type { TicketingEvent } from '../ticketing/schemas.js';
import {
  type Block,
  context,
  mrkdwnSection,
  plainMessage,
  type SlackMessage,
  warning,
  warningMessage,
} from './block-kit.js';
import { eventTitle } from './event-blocks.js';
import { describeEventTime } from './event-time.js';
import { clip, code, escapeText, type Mrkdwn, md, mentionUser } from './mrkdwn.js';

export const PROMO_CONFIRM_ACTION = 'promo_confirm';
export const PROMO_CANCEL_ACTION = 'promo_cancel';

export interface PromoConfirmOptions {
  event: TicketingEvent;
  promoId: string;
  quantity: number;
  /** The stored pending change's id: the only thing the buttons carry. */
  changeId: string;
  /** How long the confirmation stays valid, in minutes, for the person to know. */
  validForMinutes: number;
}

const count = (quantity: number) => md`*${escapeText(quantity.toLocaleString('en-US'))}*`;

/** Asks before changing anything, naming exactly what will change. */
export function promoConfirmMessage(options: PromoConfirmOptions): SlackMessage {
  const { event, promoId, quantity } = options;
  const what = md`set promo code ${code(promoId)} on *${eventTitle(event)}* to ${count(quantity)} redemption(s)`;
  const blocks: Block[] = [
    mrkdwnSection(
      warning(md`You are about to ${what}.\nOnly the quantity changes; everything else about the code stays as it is.`),
    ),
    context(
      md`:calendar: ${clip(describeEventTime(event), 300)}`,
      md`This confirmation is yours alone and expires in ${options.validForMinutes} minutes.`,
    ),
    {
      type: 'actions',
      elements: [
        {
          type: 'button',
          action_id: PROMO_CONFIRM_ACTION,
          style: 'primary',
          text: { type: 'plain_text', text: `Set to ${quantity}`.slice(0, 75) },
          value: options.changeId,
          confirm: {
            title: { type: 'plain_text', text: 'Change promo code?' },
            text: { type: 'mrkdwn', text: md`This will ${what}.` },
            confirm: { type: 'plain_text', text: 'Change it' },
            deny: { type: 'plain_text', text: 'Keep it' },
          },
        },
        {
          type: 'button',
          action_id: PROMO_CANCEL_ACTION,
          text: { type: 'plain_text', text: 'Cancel' },
          value: options.changeId,
        },
      ],
    },
  ];
  return { text: md`Confirm: set promo ${code(promoId)} to ${quantity}`, blocks };
}

/** A change as the outcome messages name it; every field is raw text, escaped here. */
export interface PromoOutcome {
  userId: string;
  eventId: string;
  /** The event's name when it has one. */
  eventName: string | undefined;
  promoId: string;
  quantity: number;
  code?: string | undefined;
}

const eventOf = (outcome: PromoOutcome) => eventTitle({ id: outcome.eventId, name: outcome.eventName });

/** The channel announcement after a change went through. */
export function promoAnnouncement(outcome: PromoOutcome): SlackMessage {
  const promoCode = outcome.code ? md` (${clip(outcome.code, 50)})` : md``;
  const line = md`:ticket: ${mentionUser(outcome.userId)} set promo code ${code(outcome.promoId)}${promoCode} on *${eventOf(outcome)}* to ${count(outcome.quantity)} redemption(s).`;
  return { text: md`Promo ${code(outcome.promoId)} set to ${outcome.quantity}`, blocks: [mrkdwnSection(line)] };
}

/** What the person who confirmed sees in place of the confirmation. */
export function promoDoneMessage(outcome: PromoOutcome, announced: boolean): SlackMessage {
  const line = md`:white_check_mark: Promo code ${code(outcome.promoId)} on *${eventOf(outcome)}* now allows ${count(outcome.quantity)} redemption(s).`;
  const blocks = [mrkdwnSection(line)];
  if (!announced)
    blocks.push(
      context(md`I couldn't announce it in this channel: invite me with \`/invite @eventops\` to post there.`),
    );
  return { text: md`Promo ${code(outcome.promoId)} set to ${outcome.quantity}`, blocks };
}

/** The service never answered a write that may have arrived: say so, and how to check. */
export function promoUncertainMessage(outcome: PromoOutcome, reason: Mrkdwn): SlackMessage {
  return plainMessage(
    md`:grey_question: I could not confirm the change of promo code ${code(outcome.promoId)} on *${eventOf(outcome)}* to ${count(outcome.quantity)}: it may or may not have been applied. ${reason}\nCheck the promo code in the ticketing dashboard; setting the same quantity again is safe (it is not added twice).`,
  );
}

/** The service refused or failed a change it certainly did not apply. */
export function promoFailedMessage(reason: Mrkdwn): SlackMessage {
  return warningMessage(md`The promo code was not changed. ${reason}`);
}

/** Why a confirmation click was refused. */
export type ConfirmationRefusal = 'unknown' | 'used' | 'expired' | 'not-yours' | 'not-editor';

const REFUSALS: Record<ConfirmationRefusal, Mrkdwn> = {
  unknown: warning(
    md`I don't know this confirmation (it may be from before a reset). Nothing was changed: run the command again.`,
  ),
  used: md`This confirmation was already used; nothing more was changed.`,
  expired: md`:hourglass: This confirmation has expired, so nothing was changed. Run the command again.`,
  'not-yours': md`:no_entry: Only the person who asked for this change can confirm it. Nothing was changed.`,
  'not-editor': md`:no_entry: Only promo editors can change promo codes. An admin can add you (or a user group you're in) to PROMO_EDITORS.`,
};

export function confirmationRefusedMessage(refusal: ConfirmationRefusal): SlackMessage {
  return plainMessage(REFUSALS[refusal]);
}

/** A code the event's report (at hand, or fetched for this) does not name with an id. */
export const promoCodeNotNamed = (promoCode: string): Mrkdwn =>
  md`The event's latest report names no promo code ${code(promoCode, 64)} with an id. Check the code, or use its id (\`promo_…\`).`;
