// The sandbox page: renders Block Kit as Slack would and sends every click back to the sandbox,
// which forwards it to the bot signed. No framework and no build step: the page is small.
import { decodeEntities, escapeHtml } from './escape-html.js';
import { mrkdwn } from './mrkdwn.js';

const ui = {
  user: 'UEDITOR01',
  channel: 'CGENERAL01',
  /** 'channel' shows messages, 'home' the App Home tab. */
  pane: 'channel',
  thread: undefined,
  state: undefined,
  version: -1,
};

const $ = (selector) => document.querySelector(selector);
/** This start's token, written into the page by the sandbox: every request to it carries it. */
const TOKEN = document.querySelector('meta[name="sandbox-token"]').content;
/** The bot's "change promo quantity" shortcut, written into the page by the sandbox from the bot's own constant. */
const PROMO_SHORTCUT = document.querySelector('meta[name="promo-shortcut"]').content;

async function call(path, body) {
  const response = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-sandbox-token': TOKEN },
    body: JSON.stringify({ user: ui.user, ...body }),
  });
  return response.json();
}

// ---- mrkdwn -------------------------------------------------------------------------------

/** Who reads the page's text: names for mentions and the signed-in person's timezone for dates. */
const reader = () => ({
  users: ui.state?.users ?? [],
  channels: ui.state?.channels ?? [],
  tz: ui.state?.users.find((user) => user.id === ui.user)?.tz ?? 'UTC',
});

const textOf = (object) =>
  object ? (object.type === 'mrkdwn' ? mrkdwn(object.text, reader()) : escapeHtml(decodeEntities(object.text))) : '';

// ---- Block Kit ----------------------------------------------------------------------------

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
    default:
      return '';
  }
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
      const hint = block.hint ? `<div class="hint">${escapeHtml(block.hint.text)}</div>` : '';
      return `<div class="input" data-block="${escapeHtml(block.block_id)}"><label>${escapeHtml(block.label.text)}</label>${inputHtml(block.element, at)}${hint}${error ? `<div class="error" data-testid="field-error">${escapeHtml(error)}</div>` : ''}</div>`;
    }
    default:
      return `<div class="block context">(${escapeHtml(block.type)} block)</div>`;
  }
}

function inputHtml(element, where) {
  const data = `data-action="${escapeHtml(element.action_id)}" data-type="${escapeHtml(element.type)}"`;
  switch (element.type) {
    case 'plain_text_input':
      return `<input ${data} maxlength="${element.max_length ?? 3000}">`;
    case 'number_input':
      return `<input ${data} inputmode="numeric" ${element.min_value ? `min="${escapeHtml(element.min_value)}"` : ''} ${element.max_value ? `max="${escapeHtml(element.max_value)}"` : ''}>`;
    case 'external_select':
      return `<span class="typeahead"><input ${data} data-where='${escapeHtml(JSON.stringify(where))}' data-kind="external_select" placeholder="${escapeHtml(element.placeholder?.text ?? 'Type to search')}"></span>`;
    default:
      return `<input ${data}>`;
  }
}

const blocksHtml = (blocks, where) => blocks.map((block) => blockHtml(block, where)).join('');

// ---- the page -----------------------------------------------------------------------------

function authorName(id) {
  if (id === 'UEVENTOPS') return 'eventops';
  return ui.state.users.find((user) => user.id === id)?.name ?? id;
}

/**
 * A message's content. One the page cannot draw (blocks it does not expect) shows its plain text
 * instead of throwing: one bad message must not stop the whole channel from rendering.
 */
function contentHtml(message, where) {
  try {
    return message.blocks.length > 0
      ? blocksHtml(message.blocks, where)
      : `<div>${mrkdwn(message.text, reader())}</div>`;
  } catch (error) {
    console.warn('The sandbox page could not draw a message; showing its text', error);
    return `<div>${escapeHtml(message.text)}</div>`;
  }
}

function messageHtml(message) {
  const where = { channel: message.channel, messageTs: message.ts };
  const bot = message.author === 'UEVENTOPS';
  const body = contentHtml(message, where);
  const files = (message.files ?? [])
    .map(
      (file) =>
        `<div class="file" data-testid="file">📎 ${escapeHtml(file.title)} <span class="meta">(${escapeHtml(file.name)}, ${file.content.length} bytes)</span></div>`,
    )
    .join('');
  const replies = ui.state.messages.filter((m) => m.threadTs === message.ts).length;
  const thread =
    replies > 0
      ? `<div class="thread-link" data-thread="${message.ts}">${replies} repl${replies === 1 ? 'y' : 'ies'}</div>`
      : '';
  const ephemeral = message.ephemeralFor ? '<div class="ephemeral-note">Only visible to you</div>' : '';
  const unfurls = Object.values(message.unfurls ?? {})
    .map(
      (unfurl) =>
        `<div class="unfurl" data-testid="unfurl">${contentHtml({ text: '', blocks: unfurl.blocks ?? [] }, where)}</div>`,
    )
    .join('');
  return `<div class="message ${message.ephemeralFor ? 'ephemeral' : ''}" data-testid="${message.ephemeralFor ? 'ephemeral' : 'message'}" data-ts="${message.ts}">
    <div class="avatar ${bot ? '' : 'person'}">${bot ? 'e' : escapeHtml(authorName(message.author).charAt(0))}</div>
    <div class="body"><div class="meta"><b>${escapeHtml(authorName(message.author))}</b>${bot ? 'APP' : ''} ${message.edited ? '<span class="edited">(edited)</span>' : ''}</div>
    ${ephemeral}${body}${unfurls}${files}${thread}</div></div>`;
}

function render() {
  const state = ui.state;
  const users = $('#user');
  if (users.options.length === 0) {
    users.innerHTML = state.users
      .map((u) => `<option value="${u.id}">${escapeHtml(u.name)} · ${escapeHtml(u.tz)}</option>`)
      .join('');
  }
  users.value = ui.user;
  $('#channels').innerHTML = state.channels
    .map(
      (c) =>
        `<a href="#" data-channel="${c.id}" class="${ui.pane === 'channel' && c.id === ui.channel ? 'active' : ''}">${c.kind === 'dm' ? '💬 eventops (DM)' : `# ${escapeHtml(c.name)}`}</a>`,
    )
    .join('');
  $('#home-link').className = ui.pane === 'home' ? 'link active' : 'link';
  const channel = state.channels.find((c) => c.id === ui.channel);
  if (ui.pane === 'home') {
    $('#title').textContent = 'eventops · Home';
    const home = state.views.find((v) => v.kind === 'home');
    $('#messages').innerHTML =
      `<div class="home" data-testid="home">${home ? blocksHtml(home.view.blocks ?? [], { viewId: home.id }) : 'Loading…'}</div>`;
    $('#composer').hidden = true;
    $('#digest-now').hidden = true;
  } else {
    $('#digest-now').hidden = channel?.kind !== 'channel';
    $('#title').textContent = channel?.kind === 'dm' ? 'eventops (direct messages)' : `# ${channel?.name ?? ''}`;
    // Replies stay in their thread, unless they were also sent to the channel.
    const list = state.messages.filter((m) => m.channel === ui.channel && (!m.threadTs || m.broadcast));
    $('#messages').innerHTML = list.map(messageHtml).join('');
    $('#messages').scrollTop = $('#messages').scrollHeight;
    $('#composer').hidden = false;
  }
  renderThread();
  renderModal();
}

function renderThread() {
  const panel = $('#thread');
  if (!ui.thread) {
    panel.hidden = true;
    return;
  }
  const replies = ui.state.messages.filter((m) => m.threadTs === ui.thread);
  panel.hidden = false;
  panel.innerHTML = `<div class="meta"><b>Thread</b> <a href="#" id="close-thread">close</a></div>${replies.map(messageHtml).join('')}`;
}

function renderModal() {
  const modal = ui.state.views.find((v) => v.kind === 'modal');
  const overlay = $('#overlay');
  if (!modal) {
    overlay.hidden = true;
    overlay.innerHTML = '';
    overlay.dataset.view = '';
    return;
  }
  // Keep what the person typed while the state refreshes under an open modal.
  if (overlay.dataset.view === modal.id && overlay.dataset.errors === JSON.stringify(modal.errors ?? {})) return;
  const typed = readValues(overlay);
  overlay.dataset.view = modal.id;
  overlay.dataset.errors = JSON.stringify(modal.errors ?? {});
  overlay.hidden = false;
  const view = modal.view;
  overlay.innerHTML = `<div class="modal" data-testid="modal" data-view="${modal.id}">
    <h2>${escapeHtml(view.title?.text ?? '')}</h2>
    <div class="content">${blocksHtml(view.blocks ?? [], { viewId: modal.id, errors: modal.errors })}</div>
    <footer><button data-close="${modal.id}">${escapeHtml(view.close?.text ?? 'Cancel')}</button>
    ${view.submit ? `<button class="primary" data-submit="${modal.id}">${escapeHtml(view.submit.text)}</button>` : ''}</footer></div>`;
  restoreValues(overlay, typed);
}

/** The modal's input values in Slack's `view.state.values` shape. */
function readValues(root) {
  const values = {};
  for (const block of root.querySelectorAll('.input')) {
    const input = block.querySelector('[data-action]');
    if (!input) continue;
    const value =
      input.dataset.type === 'external_select'
        ? {
            type: 'external_select',
            selected_option: input.dataset.selected
              ? { value: input.dataset.selected, text: { type: 'plain_text', text: input.value } }
              : null,
          }
        : { type: input.dataset.type, value: input.value };
    values[block.dataset.block] = { [input.dataset.action]: value };
  }
  return values;
}

function restoreValues(root, values) {
  for (const [blockId, byAction] of Object.entries(values)) {
    for (const [actionId, value] of Object.entries(byAction)) {
      const input = root.querySelector(`.input[data-block="${blockId}"] [data-action="${actionId}"]`);
      if (!input) continue;
      if (value.type === 'external_select' && value.selected_option) {
        input.value = decodeEntities(value.selected_option.text.text);
        input.dataset.selected = value.selected_option.value;
      } else if (value.value !== undefined) {
        input.value = value.value;
      }
    }
  }
}

async function refresh() {
  try {
    const response = await fetch(`/ui/state?user=${encodeURIComponent(ui.user)}`, {
      headers: { 'x-sandbox-token': TOKEN },
    });
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

// ---- what a person does ---------------------------------------------------------------------

/** A button, a select or an overflow option: a block action. */
async function act(where, element, extra) {
  const action = { action_id: element.action_id, block_id: where.blockId, type: element.type, ...extra };
  await call('/ui/action', { channel: where.channel, messageTs: where.messageTs, viewId: where.viewId, action });
}

/** Slack's confirm dialog, when the element asks for one. */
function confirmThen(element, go) {
  if (!element.confirm) return go();
  const c = element.confirm;
  const overlay = document.createElement('div');
  overlay.id = 'confirm';
  overlay.style.cssText =
    'position:fixed;inset:0;background:rgba(0,0,0,.45);display:flex;align-items:center;justify-content:center;z-index:5';
  overlay.innerHTML = `<div class="modal" data-testid="confirm"><h2>${escapeHtml(c.title.text)}</h2><div class="content">${textOf(c.text)}</div>
    <footer><button data-answer="no">${escapeHtml(c.deny?.text ?? 'Cancel')}</button><button class="primary" data-answer="yes">${escapeHtml(c.confirm?.text ?? 'Yes')}</button></footer></div>`;
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

async function typeahead(input) {
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
  list.innerHTML = (answer.options ?? [])
    .map((o) => `<li data-value="${escapeHtml(o.value)}">${escapeHtml(decodeEntities(o.text.text))}</li>`)
    .join('');
  input.parentElement.querySelector('ul')?.remove();
  input.parentElement.append(list);
  list.addEventListener('mousedown', async (event) => {
    const value = event.target.dataset?.value;
    if (!value) return;
    input.value = event.target.textContent;
    input.dataset.selected = value;
    list.remove();
    // In a message (not a modal input) choosing an option is an action.
    if (input.dataset.element)
      await act(where, element, { selected_option: { value, text: { type: 'plain_text', text: input.value } } });
  });
}

document.addEventListener('click', async (event) => {
  const target = event.target;
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
  }
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
  $('#command').value = '';
  // A slash command goes to the bot as one; anything else is a message (its links may unfold).
  if (text.startsWith('/')) await call('/ui/command', { channel: ui.channel, text });
  else await call('/ui/message', { channel: ui.channel, text });
});

$('#user').addEventListener('change', (event) => {
  ui.user = event.target.value;
  ui.version = -1;
  ui.channel = ui.channel.startsWith('D') ? `D${ui.user.slice(1)}` : ui.channel;
});

refresh();
