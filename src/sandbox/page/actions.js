// What a person does to an element (a click, a pick, a tick, typing in a picker), sent to the bot
// as Slack would send it.
import { plainOf, textOf } from './blocks.js';
import { decodeEntities, escapeHtml } from './escape-html.js';
import { readValues } from './form-values.js';
import { call } from './sandbox-calls.js';

/**
 * A button, a select, an overflow option, a checkbox or a time: a block action. In a modal it
 * carries the form's state, as Slack's does (`view.state.values`).
 */
export async function act(where, element, extra) {
  const action = { action_id: element.action_id, block_id: where.blockId, type: element.type, ...extra };
  const modal = where.viewId ? document.querySelector(`[data-testid=modal][data-view="${where.viewId}"]`) : null;
  const values = modal ? readValues(modal) : undefined;
  await call('/ui/action', {
    channel: where.channel,
    messageTs: where.messageTs,
    viewId: where.viewId,
    action,
    values,
  });
}

/** An input's element, from the attributes it was drawn with. */
export const inputElement = (input) => ({ action_id: input.dataset.action, type: input.dataset.type });

/** Slack's confirm dialog, when the element asks for one. */
export function confirmThen(element, go) {
  if (!element.confirm) return go();
  const c = element.confirm;
  const overlay = document.createElement('div');
  overlay.id = 'confirm';
  overlay.style.cssText =
    'position:fixed;inset:0;background:rgba(0,0,0,.45);display:flex;align-items:center;justify-content:center;z-index:5';
  overlay.innerHTML = `<div class="modal" data-testid="confirm"><h2>${plainOf(c.title)}</h2><div class="content">${textOf(c.text)}</div>
    <footer><button data-answer="no">${plainOf(c.deny, 'Cancel')}</button><button class="primary" data-answer="yes">${plainOf(c.confirm, 'Yes')}</button></footer></div>`;
  document.body.append(overlay);
  overlay.addEventListener('click', (event) => {
    const answer = event.target.dataset?.answer;
    if (!answer) return;
    overlay.remove();
    if (answer === 'yes') go();
  });
}

/** Each picker's latest typeahead request: an answer to an older one (a slower reply) is dropped. */
const latestAsk = new WeakMap();

export async function typeahead(input) {
  const where = JSON.parse(input.dataset.where);
  const element = input.dataset.element ? JSON.parse(input.dataset.element) : { action_id: input.dataset.action };
  const ask = (latestAsk.get(input) ?? 0) + 1;
  latestAsk.set(input, ask);
  const answer = await call('/ui/options', {
    viewId: where.viewId,
    actionId: element.action_id,
    blockId: where.blockId,
    value: input.value,
  });
  // Answers received so far, whether shown or dropped (tests wait on it).
  input.dataset.answers = String(Number(input.dataset.answers ?? 0) + 1);
  if (latestAsk.get(input) !== ask) return;
  const list = document.createElement('ul');
  list.dataset.testid = 'options';
  const item = (o) => `<li data-value="${escapeHtml(o.value)}">${escapeHtml(decodeEntities(o.text.text))}</li>`;
  // An answer is options, or option groups each under its label (as Slack draws them).
  const groups = answer.option_groups ?? [];
  const offered = [...(answer.options ?? []), ...groups.flatMap((group) => group.options ?? [])];
  list.innerHTML =
    groups.length > 0
      ? groups
          .map(
            (group) =>
              `<li class="option-group" data-testid="option-group">${escapeHtml(decodeEntities(group.label?.text ?? ''))}</li>${(group.options ?? []).map(item).join('')}`,
          )
          .join('')
      : offered.length > 0
        ? offered.map(item).join('')
        : '<li class="option-group" data-testid="no-options">No results</li>';
  input.parentElement.querySelector('ul')?.remove();
  input.parentElement.append(list);
  list.addEventListener('mousedown', async (event) => {
    const value = event.target.dataset?.value;
    if (!value) return;
    const chosen = offered.find((o) => o.value === value);
    const text = chosen?.text ?? { type: 'plain_text', text: event.target.textContent };
    input.value = event.target.textContent;
    input.dataset.selected = value;
    input.dataset.selectedText = JSON.stringify(text);
    list.remove();
    // In a message, or in an input block with dispatch_action, choosing an option is an action.
    if (input.dataset.element || where.dispatch)
      await act(where, input.dataset.element ? element : inputElement(input), { selected_option: { value, text } });
  });
}
