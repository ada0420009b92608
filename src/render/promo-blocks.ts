import type { types } from '@slack/bolt';
import type { Shown, Withheld } from '../figures/may-show-figures.js';
import type { PendingPromoChange } from '../promo/pending-promo-changes.js';
import type { TicketingEvent } from '../ticketing/schemas.js';
import {
  type Block,
  context,
  LIMITS,
  mrkdwnSection,
  plainMessage,
  type SlackMessage,
  warning,
  warningMessage,
} from './block-kit.js';
import { eventPlainTitle, eventTitle } from './event-blocks.js';
import { describeEventTime } from './event-time.js';
import { channelLink, clip, code, escapeText, joinMrkdwn, type Mrkdwn, md, mentionUser, shorten } from './mrkdwn.js';
import { withheldWords } from './withheld-words.js';

export const PROMO_CONFIRM_ACTION = 'promo_confirm';
export const PROMO_CANCEL_ACTION = 'promo_cancel';

export interface PromoConfirmOptions {
  event: TicketingEvent;
  promoId: string;
  quantity: number;
  /** The code people know (`EARLYBIRD`), when a report named it. */
  code?: string | undefined;
  /** The code's figures now, through the figures rule (absent: a guest or a stranger asked, none shown). */
  figures?: Shown<PromoNow> | undefined;
  /** The stored pending change's id: the only thing the buttons carry. */
  changeId: string;
  /** How long the confirmation stays valid, in minutes, for the person to know. */
  validForMinutes: number;
}

/** What a report read for the change said of the code now: figures, shown only through the rule. */
export interface PromoNow {
  /** The quantity now. */
  previousQuantity?: number | undefined;
  /** How often it was redeemed. */
  redeemed?: number | undefined;
}

const redemptions = (quantity: number) => (quantity === 1 ? md`redemption` : md`redemptions`);
const count = (quantity: number) => md`*${escapeText(quantity.toLocaleString('en-US'))}*`;
const plainCount = (quantity: number) => escapeText(quantity.toLocaleString('en-US'));

/** The code as people know it; its id only when no report named a code. */
const promoName = (promo: { code?: string | undefined; promoId: string }) =>
  promo.code ? code(promo.code, 64) : code(promo.promoId);

/** "EARLYBIRD on Summer Tech Meetup: 80 → 100" (or "set to 100" when the quantity now is unknown). */
function changeLine(
  promo: { code?: string | undefined; promoId: string; previousQuantity?: number | undefined; quantity: number },
  event: Mrkdwn,
): Mrkdwn {
  const name = promoName(promo);
  const change =
    promo.previousQuantity === undefined
      ? md`set to ${plainCount(promo.quantity)}`
      : md`${plainCount(promo.previousQuantity)} → ${plainCount(promo.quantity)}`;
  return md`${name} on ${event}: ${change}`;
}

/** Asks before changing anything, naming exactly what will change. */
export function promoConfirmMessage(options: PromoConfirmOptions): SlackMessage {
  const { event, quantity } = options;
  const { previousQuantity, redeemed } = options.figures ?? {};
  const headline = changeLine({ ...options, previousQuantity }, eventTitle(event));
  const nowParts = [
    ...(previousQuantity === undefined ? [] : [md`it allows ${count(previousQuantity)} now`]),
    ...(redeemed === undefined ? [] : [md`${count(redeemed)} ${redeemed === 1 ? md`is` : md`are`} redeemed`]),
  ];
  const now = nowParts.length > 0 ? md` (${joinMrkdwn(nowParts, md`; `)})` : md``;
  const what = md`set promo code ${promoName(options)} on *${eventTitle(event)}* to ${count(quantity)} ${redemptions(quantity)}`;
  // Set at or below what is redeemed, the code is used up at once: said before the one button.
  // Not for 0 with none redeemed: that is how a code nobody used is closed.
  const below =
    redeemed !== undefined && (quantity < redeemed || (quantity === redeemed && redeemed > 0))
      ? [
          mrkdwnSection(
            warning(
              md`${count(redeemed)} ${redeemed === 1 ? md`is` : md`are`} already redeemed, ${quantity === redeemed ? md`as many as` : md`more than`} ${count(quantity)}: the code would be used up at once, none left (redemptions made are not undone). Type a quantity of at least ${count(redeemed + 1)} to keep it usable.`,
            ),
          ),
        ]
      : [];
  const blocks: Block[] = [
    mrkdwnSection(
      warning(
        md`*${headline}*\nYou are about to ${what}${now}.\nOnly the quantity changes; everything else about the code stays as it is.`,
      ),
    ),
    ...below,
    context(
      md`:calendar: ${clip(describeEventTime(event), 300)}`,
      ...(options.code ? [md`Promo id ${code(options.promoId)}`] : []),
      md`This confirmation is yours alone and expires in ${options.validForMinutes} minutes.`,
    ),
    {
      type: 'actions',
      elements: [
        // One confirmation: this message is it (no second dialog behind the button).
        {
          type: 'button',
          action_id: PROMO_CONFIRM_ACTION,
          style: below.length > 0 ? 'danger' : 'primary',
          text: { type: 'plain_text', text: `Set to ${quantity}`.slice(0, 75) },
          value: options.changeId,
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
  return { text: shorten(md`Confirm: ${headline}`, LIMITS.fallbackText), blocks };
}

/** Above a confirmation asked again: the quantity it first showed was written over since (no figure here). */
export const quantityChangedWords = md`:arrows_counterclockwise: The quantity of this promo code was changed since you were asked, so nothing was changed yet. Here it is again, with the quantity now:`;

/** A change as the outcome messages name it, with who made it; every field is raw text, escaped here. */
export interface PromoOutcome
  extends Pick<PendingPromoChange, 'eventId' | 'eventName' | 'promoId' | 'quantity' | 'code' | 'previousQuantity'> {
  userId: string;
}

const eventOf = (outcome: PromoOutcome) => eventTitle({ id: outcome.eventId, name: outcome.eventName });
const was = (outcome: PromoOutcome) =>
  outcome.previousQuantity === undefined ? md`` : md` (was ${plainCount(outcome.previousQuantity)})`;
const outcomeText = (outcome: PromoOutcome) =>
  shorten(
    md`Promo ${changeLine(outcome, eventPlainTitle({ id: outcome.eventId, name: outcome.eventName }))}`,
    LIMITS.fallbackText,
  );

/** The channel announcement after a change went through, where the figures rule let its quantities go. */
export function promoAnnouncement(outcome: Shown<PromoOutcome>): SlackMessage {
  const line = md`:ticket: ${mentionUser(outcome.userId)} set promo code ${promoName(outcome)} on *${eventOf(outcome)}* to ${count(outcome.quantity)} ${redemptions(outcome.quantity)}${was(outcome)}.`;
  const id = outcome.code ? [context(md`Promo id ${code(outcome.promoId)}`)] : [];
  return { text: outcomeText(outcome), blocks: [mrkdwnSection(line), ...id] };
}

/**
 * What the person who confirmed sees in place of the confirmation: `announced` true, false (the
 * channel refused the post), `no-channel` (asked for outside any channel: the shortcut), or why the
 * figures rule kept it out of the channel.
 */
export function promoDoneMessage(outcome: PromoOutcome, announced: boolean | 'no-channel' | Withheld): SlackMessage {
  const line = md`:white_check_mark: Promo code ${promoName(outcome)} on *${eventOf(outcome)}* now allows ${count(outcome.quantity)} ${redemptions(outcome.quantity)}${was(outcome)}.`;
  const blocks = [mrkdwnSection(line)];
  if (announced === 'no-channel')
    blocks.push(
      context(
        md`Not announced: it was changed from the shortcut, outside any channel. To announce a change, make it with \`/events promo\` in the channel.`,
      ),
    );
  else if (announced === false)
    blocks.push(
      context(md`I couldn't announce it in this channel: invite me with \`/invite @eventops\` to post there.`),
    );
  else if (announced !== true) blocks.push(context(md`Not announced in this channel: ${withheldWords(announced)}`));
  return { text: outcomeText(outcome), blocks };
}

/** The service never answered a write that may have arrived: say so, and how to check. */
export function promoUncertainMessage(outcome: PromoOutcome, reason: Mrkdwn): SlackMessage {
  return plainMessage(
    md`:grey_question: I could not confirm the change of promo code ${promoName(outcome)} on *${eventOf(outcome)}* to ${count(outcome.quantity)}: it may or may not have been applied. ${reason}\nCheck the promo code in the ticketing dashboard; setting the same quantity again is safe (it is not added twice).`,
  );
}

/** The service refused or failed a change it certainly did not apply. */
export function promoFailedMessage(reason: Mrkdwn): SlackMessage {
  return warningMessage(md`The promo code was not changed. ${reason}`);
}

/** Why a confirmation click was refused. */
export type ConfirmationRefusal =
  | 'unknown'
  | 'used'
  | 'expired'
  | 'not-yours'
  | 'not-editor'
  | 'event-cancelled'
  | 'changed';

const REFUSALS: Record<ConfirmationRefusal, Mrkdwn> = {
  unknown: warning(
    md`I don't know this confirmation (it may be from before a reset). Nothing was changed: run the command again.`,
  ),
  used: md`This confirmation was already used; nothing more was changed.`,
  expired: md`:hourglass: This confirmation has expired, so nothing was changed. Run the command again.`,
  'not-yours': md`:no_entry: Only the person who asked for this change can confirm it. Nothing was changed.`,
  'not-editor': md`:no_entry: Only promo editors can change promo codes. An admin can add you (or a user group you're in) to PROMO_EDITORS.`,
  'event-cancelled': md`:no_entry: The event was cancelled since this change was proposed, so nothing was changed.`,
  changed: md`:arrows_counterclockwise: The quantity of this promo code was changed since this confirmation was shown, so nothing was changed. Run the command again to see the quantity now.`,
};

export function confirmationRefusedMessage(refusal: ConfirmationRefusal): SlackMessage {
  return plainMessage(REFUSALS[refusal]);
}

/** A code no report (at hand, fetched for this, or read earlier) names with an id; `known`: the codes that are known for the event. */
export function promoCodeNotNamed(promoCode: string, known?: readonly string[]): Mrkdwn {
  const shown = (known ?? []).slice(0, 15).map((each) => code(each, 64));
  const more = known && known.length > shown.length ? md` and ${known.length - shown.length} more` : md``;
  // Undefined: the codes are not said (held back from this reader, or not read for it).
  const codes =
    known === undefined
      ? md``
      : shown.length === 0
        ? md` No promo code is known for this event.`
        : md` Codes known for this event: ${joinMrkdwn(shown, md`, `)}${more}.`;
  return md`The event's latest report names no promo code ${code(promoCode, 64)} with an id.${codes} Check the code, or use its id (\`promo_…\`).`;
}

/** The promo form's title, on every view of it. */
const FORM_TITLE = { type: 'plain_text' as const, text: 'Change promo quantity' };
const CLOSE = { type: 'plain_text' as const, text: 'Close' };

/** Opened instead of the promo form for someone who may not change promo codes: told before filling it. */
export function promoNotEditorView(): types.ModalView {
  return {
    type: 'modal',
    title: FORM_TITLE,
    close: CLOSE,
    blocks: [mrkdwnSection(REFUSALS['not-editor'])],
  };
}

/** Where a promo form's answer goes: an ephemeral message in the channel it was opened from, or the person's DM. */
export interface PromoAnswerPlace {
  /** The channel, or undefined for the DM with eventops. */
  channelId: string | undefined;
  /** The channel was tried first and refused: the answer went to the DM instead. */
  channelRefused?: string | undefined;
}

const placeOf = (place: PromoAnswerPlace) =>
  place.channelId ? md`${channelLink(place.channelId)} (only you can see it there)` : md`your DM with me`;

/**
 * Under the promo form's code field, when the event's report names no such code (found after
 * **Review**): the code likely meant first, else the codes it names.
 */
export function promoCodeProblem(typed: string, close: readonly string[], known: readonly string[]): Mrkdwn {
  if (close.length > 0)
    return md`The event's report names no code ${code(typed, 64)}. Did you mean ${joinMrkdwn(
      close.slice(0, 3).map((each) => code(each, 64)),
      md` or `,
    )}? Nothing was changed.`;
  return md`${promoCodeNotNamed(typed, known)} Nothing was changed.`;
}

/**
 * A promo form's code field when the code is none of the event's known codes but close to some:
 * plain text (a field error is not mrkdwn), short enough for Slack to show under the field.
 */
export function promoCodeFieldError(typed: string, close: readonly string[], eventName: string): string {
  const name = eventName.length > 60 ? `${eventName.slice(0, 59)}…` : eventName;
  return `${name} has no code ${typed.slice(0, 64)}. Did you mean ${close.slice(0, 3).join(' or ')}?`;
}

/**
 * The promo form after **Review**: where the confirmation goes (`preparing`), that a report is
 * read for the code first (`fetching`), where the answer went (`sent`: the confirmation or, when
 * there is none, why), or that it could be posted nowhere (`failed`).
 */
export function promoAnswerView(
  place: PromoAnswerPlace,
  state: 'preparing' | 'fetching' | 'confirmation' | 'answer' | 'failed',
): types.ModalView {
  const where = placeOf(place);
  const refused = place.channelRefused
    ? md`\nI couldn't post in ${channelLink(place.channelRefused)}: invite me there with \`/invite @eventops\`.`
    : md``;
  const lines: Record<typeof state, Mrkdwn> = {
    preparing: md`:hourglass_flowing_sand: Preparing your confirmation: it will be in ${where}.`,
    fetching: md`:hourglass_flowing_sand: Reading the event's report to find the promo code; the confirmation will be in ${where}.`,
    confirmation: md`:white_check_mark: The confirmation is in ${where}. Nothing changes until you confirm it there.${refused}`,
    answer: md`:information_source: My answer is in ${where}: nothing was changed.${refused}`,
    failed: warning(
      md`I couldn't post the confirmation in ${where} or in your DM, so nothing was changed. Try \`/events promo\` in a channel I'm in.`,
    ),
  };
  return { type: 'modal', title: FORM_TITLE, close: CLOSE, blocks: [mrkdwnSection(lines[state])] };
}
