// What is entered in a modal, read and restored in Slack's `view.state.values` shape.
import { decodeEntities } from './escape-html.js';

export function readValues(root) {
  const values = {};
  for (const block of root.querySelectorAll('.input')) {
    const input = block.querySelector('[data-action]');
    if (!input) continue;
    values[block.dataset.block] = { [input.dataset.action]: stateValue(input) };
  }
  return values;
}

/** One input's value as Slack gives it in `state.values`. */
function stateValue(input) {
  switch (input.dataset.type) {
    case 'external_select':
      return {
        type: 'external_select',
        selected_option: input.dataset.selected
          ? {
              value: input.dataset.selected,
              text: input.dataset.selectedText
                ? JSON.parse(input.dataset.selectedText)
                : { type: 'plain_text', text: input.value },
            }
          : null,
      };
    case 'checkboxes':
      return { type: 'checkboxes', selected_options: tickedOptions(input) };
    case 'timepicker':
      return { type: 'timepicker', selected_time: input.value || null };
    default:
      return { type: input.dataset.type, value: input.value };
  }
}

/** The ticked boxes of a checkbox group, as option objects. */
export const tickedOptions = (group) =>
  [...group.querySelectorAll('input[type=checkbox]:checked')].map((box) => ({
    text: JSON.parse(box.dataset.text),
    value: box.value,
  }));

export function restoreValues(root, values) {
  for (const [blockId, byAction] of Object.entries(values)) {
    for (const [actionId, value] of Object.entries(byAction)) {
      const input = root.querySelector(`.input[data-block="${blockId}"] [data-action="${actionId}"]`);
      if (!input) continue;
      if (value.type === 'external_select' && value.selected_option) {
        input.value = decodeEntities(value.selected_option.text.text);
        input.dataset.selected = value.selected_option.value;
        input.dataset.selectedText = JSON.stringify(value.selected_option.text);
      } else if (value.type === 'checkboxes') {
        const ticked = new Set(value.selected_options.map((option) => option.value));
        for (const box of input.querySelectorAll('input[type=checkbox]')) box.checked = ticked.has(box.value);
      } else if (value.type === 'timepicker') {
        input.value = value.selected_time ?? '';
      } else if (value.value !== undefined) {
        input.value = value.value;
      }
    }
  }
}
