// Work Objects as Slack draws them: an entity card under the message whose link it unfolds, and
// the flexpane a click opens beside the channel, filled by the bot for the person who clicked.
import { decodeEntities, escapeHtml } from './escape-html.js';

/** A field's text as Slack shows it: the bot's escaped text decoded once, then made safe for HTML. */
const textOf = (value) => escapeHtml(decodeEntities(value ?? ''));

/** A timestamp field in the reader's own zone, as Slack shows one. */
function timestampText(seconds, tz) {
  const date = new Date(Number(seconds) * 1000);
  if (Number.isNaN(date.getTime())) return '';
  return new Intl.DateTimeFormat('en-GB', {
    timeZone: tz,
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZoneName: 'short',
  }).format(date);
}

/** An entity's fields, in its `display_order`. */
function fieldsHtml(entity, tz) {
  const payload = entity?.entity_payload ?? {};
  const fields = payload.custom_fields ?? [];
  const order = payload.display_order ?? fields.map((field) => field.key);
  return order
    .map((key) => fields.find((field) => field.key === key))
    .filter(Boolean)
    .map((field) => {
      const value =
        field.type === 'slack#/types/timestamp' ? escapeHtml(timestampText(field.value, tz)) : textOf(field.value);
      return `<div class="wo-field${field.long ? ' long' : ''}" data-field="${escapeHtml(field.key)}"><span class="wo-label">${textOf(field.label)}</span> <span class="wo-value">${value}</span></div>`;
    })
    .join('');
}

function titleHtml(entity) {
  const attributes = entity?.entity_payload?.attributes ?? {};
  const type = attributes.display_type ? `<span class="wo-type">${textOf(attributes.display_type)}</span>` : '';
  return `<div class="wo-title">${type}<b>${textOf(attributes.title?.text)}</b></div>`;
}

/** The Work Object cards of a message (`chat.unfurl` metadata), each opening its flexpane on click. */
export function entityCardsHtml(message, tz) {
  return Object.entries(message.entities ?? {})
    .map(
      ([url, entity]) =>
        `<div class="unfurl work-object" data-testid="work-object" role="button" tabindex="0" title="Open details" data-entity-url="${escapeHtml(url)}" data-entity-channel="${escapeHtml(message.channel)}" data-entity-ts="${escapeHtml(message.ts)}">${titleHtml(entity)}${fieldsHtml(entity, tz)}</div>`,
    )
    .join('');
}

/** The signed-in person's flexpane: loading until the bot presents it, then its fields and buttons, or its error. */
export function flexpaneHtml(flexpane, tz) {
  const close = '<button type="button" class="link" data-flexpane-close>close</button>';
  if (!flexpane.metadata && !flexpane.error)
    return `<div class="meta"><b>Details</b> ${close}</div><div class="wo-loading">Loading…</div>`;
  if (flexpane.error) {
    const error = flexpane.error;
    return `<div class="meta"><b>${textOf(error.custom_title ?? 'Details')}</b> ${close}</div><div class="wo-error" data-testid="flexpane-error">${textOf(error.custom_message ?? error.status)}</div>`;
  }
  const entity = flexpane.metadata;
  const actions = entity.entity_payload?.actions ?? {};
  const buttons = [...(actions.primary_actions ?? []), ...(actions.overflow_actions ?? [])]
    .map(
      (action) =>
        `<button type="button" class="${action.style === 'primary' ? 'primary' : ''}" data-entity-action="${escapeHtml(action.action_id)}" data-entity-value="${escapeHtml(action.value ?? '')}">${textOf(action.text)}</button>`,
    )
    .join(' ');
  return `<div class="meta"><b>Details</b> ${close}</div>${titleHtml(entity)}${fieldsHtml(entity, tz)}<div class="wo-actions">${buttons}</div>`;
}

/**
 * A click on a card, a flexpane button or the flexpane's close, sent as Slack would; false for any
 * other click. `call` is the page's action sender.
 */
export async function workObjectClick(target, call) {
  const card = target.closest?.('[data-entity-url]');
  if (card) {
    await call('/ui/entity', {
      channel: card.dataset.entityChannel,
      messageTs: card.dataset.entityTs,
      url: card.dataset.entityUrl,
    });
    return true;
  }
  if (target.dataset?.entityAction) {
    // A flexpane's button is a block action with no conversation behind it.
    await call('/ui/action', {
      action: {
        action_id: target.dataset.entityAction,
        type: 'button',
        value: target.dataset.entityValue,
        text: { type: 'plain_text', text: target.textContent },
      },
    });
    return true;
  }
  if (target.dataset?.flexpaneClose !== undefined) {
    await call('/ui/flexpane-close', {});
    return true;
  }
  return false;
}
