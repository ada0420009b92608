import type { types } from '@slack/bolt';
import type { TicketingEvent } from '../ticketing/schemas.js';
import { describeCondition, type WatchCondition } from '../watches/watch-condition.js';
import { conditionLabel } from './condition-label.js';
import { eventLabel } from './event-blocks.js';
import { shortEventTime } from './event-time.js';
import { channelLink, escapeText, type Mrkdwn, md, shorten } from './mrkdwn.js';

export const EVENT_PICKER_ACTION = 'event_picker';
export const PROMO_MODAL = 'promo_modal';
export const REPORT_MODAL = 'report_modal';
export const CHANGE_PROMO_SHORTCUT = 'change_promo_quantity';
export const WATCH_MODAL = 'watch_modal';

/** Block and action ids of the modals' inputs, read back on submission. */
export const FIELDS = {
  event: { block: 'event', action: EVENT_PICKER_ACTION },
  promo: { block: 'promo', action: 'promo_id' },
  quantity: { block: 'quantity', action: 'quantity' },
  offered: { block: 'watch_offered', action: 'watch_offered' },
  conditions: { block: 'watch_conditions', action: 'watch_conditions' },
  personal: { block: 'watch_personal', action: 'watch_personal' },
} as const;

/** The value of the "only for me" checkbox. */
export const PERSONAL_VALUE = 'personal';

/** Slack's limits for a select's options (https://docs.slack.dev/reference/block-kit/composition-objects/option-object). */
const OPTION_TEXT = 75;
export const MAX_OPTIONS = 100;

/** Slack's limit for an input's hint (https://docs.slack.dev/reference/block-kit/blocks/input-block). */
const HINT_TEXT = 2000;

/** Plain text, escaped as headers are (Slack decodes the three entities there too). */
const plain = (text: Mrkdwn, max = OPTION_TEXT) => ({ type: 'plain_text' as const, text: shorten(text, max) });

/** An input's hint: up to Slack's own limit, not an option's. */
const hint = (text: Mrkdwn) => plain(text, HINT_TEXT);

/** One event as a picker option: its name and when (with the event's zone), within 75 characters; its id as the value. */
export function eventOption(event: TicketingEvent) {
  const when = escapeText(shortEventTime(event));
  const name = escapeText(eventLabel(event));
  const room = OPTION_TEXT - when.length - 3;
  return { text: plain(room > 10 ? md`${shorten(name, room)} · ${when}` : name), value: event.id };
}

const eventPicker = (
  options: { dispatch?: boolean; initial?: ReturnType<typeof eventOption> | undefined } = {},
): types.InputBlock => ({
  type: 'input',
  block_id: FIELDS.event.block,
  label: plain(md`Event`),
  // The watch form asks again once an event is picked: it offers what that event's report holds.
  ...(options.dispatch ? { dispatch_action: true } : {}),
  element: {
    type: 'external_select',
    action_id: FIELDS.event.action,
    placeholder: plain(md`Type part of its name`),
    min_query_length: 0,
    ...(options.initial ? { initial_option: options.initial } : {}),
  },
});

/** The promo change modal: event picker, promo code id, quantity (0 to `maxQuantity`). */
export function promoModalView(privateMetadata: string, maxQuantity: number, event?: TicketingEvent): types.ModalView {
  return {
    type: 'modal',
    callback_id: PROMO_MODAL,
    private_metadata: privateMetadata,
    title: plain(md`Change promo quantity`),
    submit: plain(md`Review`),
    close: plain(md`Cancel`),
    blocks: [
      eventPicker({ initial: event ? eventOption(event) : undefined }),
      {
        type: 'input',
        block_id: FIELDS.promo.block,
        label: plain(md`Promo code`),
        hint: hint(md`Its code (EARLYBIRD, found in the event's report) or its id (promo_…)`),
        element: { type: 'plain_text_input', action_id: FIELDS.promo.action, max_length: 100 },
      },
      {
        type: 'input',
        block_id: FIELDS.quantity.block,
        label: plain(md`Redemptions allowed`),
        hint: hint(
          md`A whole number from 0 to ${escapeText(maxQuantity.toLocaleString('en-US'))}; you confirm before anything changes`,
        ),
        element: {
          type: 'number_input',
          action_id: FIELDS.quantity.action,
          is_decimal_allowed: false,
          min_value: '0',
          max_value: String(maxQuantity),
        },
      },
    ],
  };
}

/** The report modal: an event picker. */
export function reportModalView(privateMetadata: string): types.ModalView {
  return {
    type: 'modal',
    callback_id: REPORT_MODAL,
    private_metadata: privateMetadata,
    title: plain(md`Event report`),
    submit: plain(md`Request report`),
    close: plain(md`Cancel`),
    blocks: [eventPicker()],
  };
}

export interface WatchModalInput {
  privateMetadata: string;
  /** The event picked so far (the form is redrawn once one is). */
  event?: TicketingEvent | undefined;
  /** Conditions the event's latest report allows, and those ticked at first. */
  offered?: readonly WatchCondition[] | undefined;
  ticked?: readonly WatchCondition[] | undefined;
  /** The report's currency, said with money thresholds. */
  currency?: string | undefined;
  /** Said under the choices: where they come from, or why there are none. */
  note?: Mrkdwn | undefined;
  personal: boolean;
}

/** Slack's limits for checkboxes: 10 options. */
const MAX_CHECKBOXES = 10;

/**
 * The watch form: the event (picking one redraws the form with the conditions its latest report
 * allows), conditions of one's own in the `/events watch` syntax, and "only for me" (a DM).
 */
export function watchModalView(input: WatchModalInput): types.ModalView {
  // Shown in words (money with its currency), the syntax to type beside it; the value is the syntax.
  const option = (condition: WatchCondition) => {
    const syntax = describeCondition(condition);
    return {
      text: plain(escapeText(conditionLabel(condition, input.currency))),
      description: plain(escapeText(syntax)),
      value: syntax.slice(0, 150),
    };
  };
  const offered = (input.offered ?? []).slice(0, MAX_CHECKBOXES).map(option);
  const tickedValues = new Set((input.ticked ?? []).map((condition) => describeCondition(condition).slice(0, 150)));
  const ticked = offered.filter((o) => tickedValues.has(o.value));
  const blocks: types.ModalView['blocks'] = [
    eventPicker({ dispatch: true, initial: input.event ? eventOption(input.event) : undefined }),
  ];
  if (offered.length > 0) {
    blocks.push({
      type: 'input',
      block_id: FIELDS.offered.block,
      optional: true,
      label: plain(md`Tell me when`),
      element: {
        type: 'checkboxes',
        action_id: FIELDS.offered.action,
        options: offered,
        ...(ticked.length > 0 ? { initial_options: ticked } : {}),
      },
    });
  }
  if (input.note) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: input.note }] });
  blocks.push(
    {
      type: 'input',
      block_id: FIELDS.conditions.block,
      optional: true,
      label: plain(md`Other conditions`),
      hint: hint(md`Separated by commas: sold >= 95%, EARLYBIRD left <= 10, +50 sold, no sale for 6h, checkIns >= 100`),
      element: { type: 'plain_text_input', action_id: FIELDS.conditions.action, max_length: 500 },
    },
    {
      type: 'input',
      block_id: FIELDS.personal.block,
      optional: true,
      label: plain(md`Where`),
      element: {
        type: 'checkboxes',
        action_id: FIELDS.personal.action,
        options: [{ text: plain(md`Only for me, in my DM with eventops`), value: PERSONAL_VALUE }],
        ...(input.personal
          ? { initial_options: [{ text: plain(md`Only for me, in my DM with eventops`), value: PERSONAL_VALUE }] }
          : {}),
      },
    },
  );
  return {
    type: 'modal',
    callback_id: WATCH_MODAL,
    private_metadata: input.privateMetadata,
    title: plain(md`Watch an event`),
    submit: plain(md`Watch`),
    close: plain(md`Cancel`),
    blocks,
  };
}

/**
 * The watch form after **Watch**, while the watch is set: it stays open saying so (`setting`),
 * that the report is read for it (`fetching`: `waiting`, the report limit's words), then where the
 * answer went (`answered`). No notice is left behind in the conversation: only the answer goes there.
 */
export function watchFormWaitView(
  place: { channelId: string | undefined },
  state: { kind: 'setting' } | { kind: 'fetching'; waiting: Mrkdwn } | { kind: 'answered' },
): types.ModalView {
  const where = place.channelId ? md`${channelLink(place.channelId)} (only you can see it there)` : md`your DM with me`;
  const line =
    state.kind === 'setting'
      ? md`:hourglass_flowing_sand: Setting the watch: the answer will be in ${where}.`
      : state.kind === 'fetching'
        ? md`${state.waiting}\nThe answer will be in ${where}.`
        : md`:white_check_mark: The answer is in ${where}. You can close this.`;
  return {
    type: 'modal',
    title: plain(md`Watch an event`),
    close: plain(md`Close`),
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text: line } }],
  };
}
