// Block Kit drawn as Slack draws it; every element carries where it lives, so a click can say so.
import { chartHtml } from './charts.js';
import { decodeEntities, escapeHtml } from './escape-html.js';
import { mrkdwn } from './mrkdwn.js';
import { richTextHtml, tableHtml } from './table.js';
import { reader } from './ui.js';

export const textOf = (object) =>
  object ? (object.type === 'mrkdwn' ? mrkdwn(object.text, reader()) : escapeHtml(decodeEntities(object.text))) : '';
/** Plain text (labels, hints, placeholders, titles) as Slack shows it: its three entities decoded once. */
export const plainOf = (object, otherwise = '') => escapeHtml(decodeEntities(object?.text ?? otherwise));

/** Where an element lives, so a click can say so to the bot. */
function elementHtml(element, where) {
  const data = `data-where='${escapeHtml(JSON.stringify(where))}' data-element='${escapeHtml(JSON.stringify(element))}'`;
  switch (element.type) {
    case 'button':
      return `<button class="${element.style ?? ''}" ${data} data-kind="button">${escapeHtml(decodeEntities(element.text.text))}</button>`;
    case 'overflow':
      return `<span class="overflow"><button ${data} data-kind="overflow">⋯</button></span>`;
    case 'static_select':
      return `<select class="select" ${data} data-kind="static_select"><option value="">${escapeHtml(element.placeholder?.text ?? 'Choose')}</option>${(element.options ?? []).map((o) => `<option value="${escapeHtml(o.value)}">${escapeHtml(decodeEntities(o.text.text))}</option>`).join('')}</select>`;
    case 'external_select':
      return `<span class="typeahead"><input ${data} data-kind="external_select" placeholder="${escapeHtml(element.placeholder?.text ?? 'Type to search')}"></span>`;
    case 'image':
      return `<img src="${escapeHtml(element.image_url)}" alt="${escapeHtml(element.alt_text ?? '')}">`;
    case 'timepicker':
      return `<input type="time" class="timepicker" ${data} data-kind="timepicker" value="${escapeHtml(element.initial_time ?? '')}" aria-label="${plainOf(element.placeholder, 'Select time')}">`;
    case 'checkboxes':
      return `<span class="checkboxes" ${data} data-kind="checkboxes">${checkboxesHtml(element)}</span>`;
    default:
      return '';
  }
}

/** A checkbox group's boxes, those of `initial_options` ticked; an option's text may be mrkdwn. */
function checkboxesHtml(element) {
  const ticked = new Set((element.initial_options ?? []).map((option) => option.value));
  return (element.options ?? [])
    .map(
      (option) =>
        `<label class="checkbox"><input type="checkbox" value="${escapeHtml(option.value)}" data-text='${escapeHtml(JSON.stringify(option.text))}' ${ticked.has(option.value) ? 'checked' : ''}><span>${textOf(option.text)}${option.description ? `<span class="hint">${textOf(option.description)}</span>` : ''}</span></label>`,
    )
    .join('');
}

function blockHtml(block, where) {
  const at = { ...where, blockId: block.block_id };
  switch (block.type) {
    case 'header':
      return `<div class="block header">${textOf(block.text)}</div>`;
    case 'divider':
      return '<hr>';
    case 'section': {
      const fields = block.fields
        ? `<div class="fields">${block.fields.map((f) => `<div>${textOf(f)}</div>`).join('')}</div>`
        : '';
      const accessory = block.accessory ? elementHtml(block.accessory, at) : '';
      return `<div class="block section"><div class="text">${textOf(block.text)}${fields}</div>${accessory}</div>`;
    }
    case 'context':
      return `<div class="block context">${block.elements.map((e) => (e.type === 'image' ? elementHtml(e, at) : `<span>${textOf(e)}</span>`)).join('')}</div>`;
    case 'actions':
      return `<div class="block actions">${block.elements.map((e) => elementHtml(e, at)).join('')}</div>`;
    case 'image':
      return `<div class="block"><img src="${escapeHtml(block.image_url)}" alt="${escapeHtml(block.alt_text ?? '')}" style="max-width:360px"></div>`;
    case 'input': {
      const error = where.errors?.[block.block_id];
      const hint = block.hint ? `<div class="hint">${plainOf(block.hint)}</div>` : '';
      const optional = block.optional ? ' <span class="optional">(optional)</span>' : '';
      const element = inputHtml(block.element, { ...at, dispatch: block.dispatch_action === true });
      return `<div class="input" data-block="${escapeHtml(block.block_id)}"><label>${plainOf(block.label)}${optional}</label>${element}${hint}${error ? `<div class="error" data-testid="field-error">${escapeHtml(error)}</div>` : ''}</div>`;
    }
    // A chart is a canvas here, drawn by drawCharts once the page holds it.
    case 'data_visualization':
      return chartHtml(block);
    case 'table':
      return tableHtml(block, reader());
    case 'rich_text':
      return `<div class="block rich-text">${richTextHtml(block, reader())}</div>`;
    default:
      return `<div class="block context">(${escapeHtml(block.type)} block)</div>`;
  }
}

/**
 * An input block's element. With `dispatch_action` on its block (`where.dispatch`), a pick, a tick
 * or a time goes to the bot as a block action at once, as well as with the form.
 */
function inputHtml(element, where) {
  const data = `data-action="${escapeHtml(element.action_id)}" data-type="${escapeHtml(element.type)}" data-where='${escapeHtml(JSON.stringify(where))}'`;
  const placeholder = (otherwise) => `placeholder="${plainOf(element.placeholder, otherwise)}"`;
  switch (element.type) {
    case 'plain_text_input':
      return `<input ${data} maxlength="${element.max_length ?? 3000}" value="${escapeHtml(element.initial_value ?? '')}" ${placeholder('')}>`;
    case 'number_input':
      return `<input ${data} inputmode="numeric" ${element.min_value ? `min="${escapeHtml(element.min_value)}"` : ''} ${element.max_value ? `max="${escapeHtml(element.max_value)}"` : ''} value="${escapeHtml(element.initial_value ?? '')}" ${placeholder('')}>`;
    case 'external_select': {
      const initial = element.initial_option;
      const chosen = initial
        ? `value="${plainOf(initial.text)}" data-selected="${escapeHtml(initial.value)}" data-selected-text='${escapeHtml(JSON.stringify(initial.text))}'`
        : '';
      return `<span class="typeahead"><input ${data} data-kind="external_select" ${chosen} ${placeholder('Type to search')}></span>`;
    }
    case 'checkboxes':
      return `<div class="checkboxes" ${data}>${checkboxesHtml(element)}</div>`;
    case 'timepicker':
      return `<input type="time" ${data} value="${escapeHtml(element.initial_time ?? '')}">`;
    default:
      return `<input ${data}>`;
  }
}

export const blocksHtml = (blocks, where) => blocks.map((block) => blockHtml(block, where)).join('');
