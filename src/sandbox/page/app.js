// The sandbox page: renders Block Kit as Slack would and sends every click back to the sandbox,
// which forwards it to the bot signed. No framework and no build step: the page is small.
import { act, confirmThen, inputElement, typeahead } from './actions.js';
import { decodeEntities, escapeHtml } from './escape-html.js';
import { openFile } from './file-viewer.js';
import { readValues, tickedOptions } from './form-values.js';
import { openMoreActions } from './more-actions.js';
import { render, renderThread } from './render.js';
import { call, NOT_RUNNING, notice, notices, send } from './sandbox-calls.js';
import { $, PROMO_SHORTCUT, ui } from './ui.js';
import { workObjectClick } from './work-objects.js';

async function refresh() {
  try {
    let response;
    try {
      response = await send(`/ui/state?user=${encodeURIComponent(ui.user)}`);
    } catch {
      notice('connection', NOT_RUNNING);
      return;
    }
    notice('connection', response.status === 403 ? 'The sandbox refused this tab: reload the page.' : undefined);
    // Back: the action that could not go says so no longer (what was typed is still there to send).
    if (response.ok && notices.get('action') === NOT_RUNNING) notice('action', undefined);
    const state = await response.json();
    if (response.ok && (state.version !== ui.version || !ui.state)) {
      ui.state = state;
      ui.version = state.version;
      render();
    }
  } finally {
    setTimeout(refresh, 300);
  }
}

document.addEventListener('click', async (event) => {
  const target = event.target;
  if (await workObjectClick(target, call)) return;
  // A menu closes on any click elsewhere.
  const menu = document.querySelector('#more-actions-menu');
  if (menu && !menu.contains(target) && !target.dataset.more) menu.remove();
  if (target.dataset.channel) {
    event.preventDefault();
    ui.pane = 'channel';
    ui.channel = target.dataset.channel;
    ui.thread = undefined;
    render();
  } else if (target.id === 'home-link') {
    event.preventDefault();
    ui.pane = 'home';
    render();
    await call('/ui/home', {});
  } else if (target.id === 'digest-now') {
    await call('/ui/command', { channel: ui.channel, text: '/events digest now' });
  } else if (target.id === 'shortcut') {
    event.preventDefault();
    await call('/ui/shortcut', { callbackId: PROMO_SHORTCUT });
  } else if (target.dataset.file) {
    openFile(target.dataset.file);
  } else if (target.dataset.closeFile !== undefined) {
    document.querySelector('#file-viewer')?.remove();
  } else if (target.dataset.more) {
    openMoreActions(target);
  } else if (target.dataset.shortcut) {
    document.querySelector('#more-actions-menu')?.remove();
    await call('/ui/message-shortcut', {
      callbackId: target.dataset.shortcut,
      channel: target.dataset.shortcutChannel,
      messageTs: target.dataset.shortcutTs,
    });
  } else if (target.dataset.thread) {
    ui.thread = target.dataset.thread;
    renderThread();
  } else if (target.id === 'close-thread') {
    event.preventDefault();
    ui.thread = undefined;
    renderThread();
  } else if (target.dataset.kind === 'button') {
    const where = JSON.parse(target.dataset.where);
    const element = JSON.parse(target.dataset.element);
    confirmThen(element, () => act(where, element, { value: element.value, text: element.text }));
  } else if (target.dataset.kind === 'overflow') {
    const where = JSON.parse(target.dataset.where);
    const element = JSON.parse(target.dataset.element);
    const menu = document.createElement('ul');
    menu.innerHTML = element.options
      .map((o) => `<li data-value="${escapeHtml(o.value)}">${escapeHtml(decodeEntities(o.text.text))}</li>`)
      .join('');
    target.parentElement.append(menu);
    menu.addEventListener('click', (choice) => {
      const value = choice.target.dataset?.value;
      menu.remove();
      if (value) act(where, element, { selected_option: { value } });
    });
  } else if (target.dataset.close) {
    await call('/ui/close', { viewId: target.dataset.close });
  } else if (target.dataset.submit) {
    await call('/ui/submit', { viewId: target.dataset.submit, values: readValues($('#overlay')) });
  }
});

document.addEventListener('change', async (event) => {
  const target = event.target;
  if (target.dataset.kind === 'static_select' && target.value) {
    const where = JSON.parse(target.dataset.where);
    const element = JSON.parse(target.dataset.element);
    await act(where, element, { selected_option: { value: target.value } });
  } else if (target.dataset.kind === 'timepicker' && target.value) {
    // Slack sends the time once one is picked.
    const where = JSON.parse(target.dataset.where);
    const element = JSON.parse(target.dataset.element);
    confirmThen(element, () => act(where, element, { selected_time: target.value }));
  } else if (target.type === 'checkbox') {
    // Each tick or untick is an action in a message or the App Home, and in a modal's input block
    // only with dispatch_action.
    const group = target.closest('[data-kind=checkboxes], .checkboxes[data-action]');
    if (!group) return;
    const where = JSON.parse(group.dataset.where);
    if (group.dataset.element) {
      const element = JSON.parse(group.dataset.element);
      await act(where, element, { selected_options: tickedOptions(group) });
    } else if (where.dispatch) {
      await act(where, inputElement(group), { selected_options: tickedOptions(group) });
    }
  } else if (target.dataset.type === 'timepicker' && target.dataset.action) {
    const where = JSON.parse(target.dataset.where);
    if (where.dispatch && target.value) await act(where, inputElement(target), { selected_time: target.value });
  }
});

document.addEventListener('keydown', (event) => {
  if (event.key !== 'Escape') return;
  document.querySelector('#file-viewer')?.remove();
  document.querySelector('#more-actions-menu')?.remove();
});

let typing;
document.addEventListener('input', (event) => {
  const target = event.target;
  if (target.dataset.kind !== 'external_select') return;
  delete target.dataset.selected;
  clearTimeout(typing);
  typing = setTimeout(() => typeahead(target), 150);
});
document.addEventListener('focusin', (event) => {
  if (event.target.dataset?.kind === 'external_select') typeahead(event.target);
});

$('#composer').addEventListener('submit', async (event) => {
  event.preventDefault();
  const text = $('#command').value.trim();
  if (!text) return;
  // A slash command goes to the bot as one; anything else is a message (its links may unfold).
  const sent = text.startsWith('/')
    ? await call('/ui/command', { channel: ui.channel, text })
    : await call('/ui/message', { channel: ui.channel, text });
  // Kept when it did not go (the page says why), to send again; cleared unless the person typed on.
  if (sent.ok !== false && $('#command').value.trim() === text) $('#command').value = '';
});

$('#user').addEventListener('change', (event) => {
  ui.user = event.target.value;
  ui.version = -1;
  ui.channel = ui.channel.startsWith('D') ? `D${ui.user.slice(1)}` : ui.channel;
});

// How an agent connects: the bot's /mcp, on the bot's port (not the page's), named by the sandbox.
const mcpUrl = document.querySelector('meta[name="mcp-url"]').content;
if (mcpUrl) {
  $('[data-testid=mcp-url]').textContent = mcpUrl;
  $('[data-testid=mcp-add]').textContent =
    `claude mcp add --transport http eventops ${mcpUrl} --header "Authorization: Bearer <token>"`;
  $('[data-testid=mcp-note]').hidden = false;
}

refresh();
