import type { types } from '@slack/bolt';
import type { TicketingEvent } from '../ticketing/schemas.js';
import { eventLabel } from './event-blocks.js';
import { describeEventTime } from './event-time.js';
import { escapeText, type Mrkdwn, md, shorten } from './mrkdwn.js';

export const EVENT_PICKER_ACTION = 'event_picker';
export const PROMO_MODAL = 'promo_modal';
export const REPORT_MODAL = 'report_modal';
export const CHANGE_PROMO_SHORTCUT = 'change_promo_quantity';

/** Block and action ids of the modals' inputs, read back on submission. */
export const FIELDS = {
  event: { block: 'event', action: EVENT_PICKER_ACTION },
  promo: { block: 'promo', action: 'promo_id' },
  quantity: { block: 'quantity', action: 'quantity' },
} as const;

/** Slack's limits for a select's options (https://docs.slack.dev/reference/block-kit/composition-objects/option-object). */
const OPTION_TEXT = 75;
export const MAX_OPTIONS = 100;

/** Plain text, escaped as headers are (Slack decodes the three entities there too). */
const plain = (text: Mrkdwn) => ({ type: 'plain_text' as const, text: shorten(text, OPTION_TEXT) });

/** One event as a picker option: its name and when, within 75 characters; its id as the value. */
export function eventOption(event: TicketingEvent) {
  const when = escapeText(describeEventTime(event).split(' (')[0] ?? '');
  const name = escapeText(eventLabel(event));
  const room = OPTION_TEXT - when.length - 3;
  return { text: plain(room > 10 ? md`${shorten(name, room)} · ${when}` : name), value: event.id };
}

const eventPicker = (): types.InputBlock => ({
  type: 'input',
  block_id: FIELDS.event.block,
  label: plain(md`Event`),
  element: {
    type: 'external_select',
    action_id: FIELDS.event.action,
    placeholder: plain(md`Type part of its name`),
    min_query_length: 0,
  },
});

/** The promo change modal: event picker, promo code id, quantity (0 to `maxQuantity`). */
export function promoModalView(privateMetadata: string, maxQuantity: number): types.ModalView {
  return {
    type: 'modal',
    callback_id: PROMO_MODAL,
    private_metadata: privateMetadata,
    title: plain(md`Change promo quantity`),
    submit: plain(md`Review`),
    close: plain(md`Cancel`),
    blocks: [
      eventPicker(),
      {
        type: 'input',
        block_id: FIELDS.promo.block,
        label: plain(md`Promo code id`),
        hint: plain(md`promo_… (with or without the prefix)`),
        element: { type: 'plain_text_input', action_id: FIELDS.promo.action, max_length: 100 },
      },
      {
        type: 'input',
        block_id: FIELDS.quantity.block,
        label: plain(md`Redemptions allowed`),
        hint: plain(
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
