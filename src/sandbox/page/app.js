// The sandbox page: renders Block Kit as Slack would and sends every click back to the sandbox,
// which forwards it to the bot signed. No framework and no build step: the page is small.
import { chartHtml, drawCharts } from './charts.js';
import { decodeEntities, escapeHtml } from './escape-html.js';
import { mrkdwn } from './mrkdwn.js';
import { streamHtml } from './stream.js';
import { richTextHtml, tableHtml } from './table.js';
import { entityCardsHtml, flexpaneHtml, workObjectClick } from './work-objects.js';

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
/**
 * The sandbox's token, written into the page at each start: every request to it carries it. A
 * restart makes up a new one, so a tab opened before it reads the page again for it (same origin
 * only, as the page itself was read).
 */
let token = document.querySelector('meta[name="sandbox-token"]').content;
/** The bot's "change promo quantity" shortcut, written into the page by the sandbox from the bot's own constant. */
const PROMO_SHORTCUT = document.querySelector('meta[name="promo-shortcut"]').content;
/** The app's message shortcuts (a message's More actions menu): `[{ callbackId, name }]`, from the sandbox. */
const MESSAGE_SHORTCUTS = JSON.parse(document.querySelector('meta[name="message-shortcuts"]').content);

/** The token in the page as the sandbox serves it now; whether it is a new one. */
async function renewToken() {
  const response = await fetch('/', { cache: 'no-store' });
  if (!response.ok) return false;
  const page = new DOMParser().parseFromString(await response.text(), 'text/html');
  const fresh = page.querySelector('meta[name="sandbox-token"]')?.content;
  if (!fresh || fresh === token) return false;
  token = fresh;
  // A new start holds none of what the page shows: draw what it has.
  ui.version = -1;
  return true;
}

/** A request with the token; refused for its token (403), once more with the token the sandbox has now. */
async function send(path, init = {}) {
  const attempt = () => fetch(path, { ...init, headers: { ...init.headers, 'x-sandbox-token': token } });
  const response = await attempt();
  if (response.status === 403 && (await renewToken())) return attempt();
  return response;
}

/** What the page tells the person about the sandbox itself (not running, refused), by what it is about. */
const notices = new Map();
function notice(kind, text) {
  if (text) notices.set(kind, text);
  else notices.delete(kind);
  const shown = [...notices.values()].at(-1);
  const box = $('#notice');
  box.hidden = !shown;
  box.textContent = shown ?? '';
}

const NOT_RUNNING =
  'The sandbox is not running (stopped or restarting?): start it with `npm start`; this tab carries on once it is back.';

/** A page action; `{ ok: false }` when it did not reach the bot, and the page says why. */
async function call(path, body) {
  let response;
  try {
    response = await send(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user: ui.user, ...body }),
    });
  } catch {
    notice('action', NOT_RUNNING);
    return { ok: false, error: 'not_running' };
  }
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) {
    notice(
      'action',
      response.status === 403
        ? 'The sandbox refused this tab: reload the page.'
        : `The sandbox could not do that (${answer.error ?? response.status}).`,
    );
    return { ok: false, ...answer };
  }
  notice('action', undefined);
  return answer;
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
/** Plain text (labels, hints, placeholders, titles) as Slack shows it: its three entities decoded once. */
const plainOf = (object, otherwise = '') => escapeHtml(decodeEntities(object?.text ?? otherwise));

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

const blocksHtml = (blocks, where) => blocks.map((block) => blockHtml(block, where)).join('');

// ---- the page -----------------------------------------------------------------------------

function authorName(id) {
  if (id === 'UEVENTOPS') return 'eventops';
  if (id === 'USLACKBOT') return 'Slackbot';
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

/** The first words of a message, plain, for a line that points at it. */
function snippetOf(message) {
  // Its mrkdwn as read (names, not ids; no markers), then as plain text.
  const read = document.createElement('div');
  read.innerHTML = mrkdwn(String(message?.text ?? ''), reader());
  const text = (read.textContent ?? '').replace(/\s+/g, ' ').trim();
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}

/**
 * A thread reply also sent to the channel (`reply_broadcast`) says so, as Slack does: "replied to
 * a thread" (with the start of the message it answers) in the channel, "Also sent to the channel"
 * in the thread.
 */
function broadcastHtml(message, place) {
  if (!message.threadTs || !message.broadcast) return '';
  if (place === 'thread')
    return '<div class="broadcast-note" data-testid="broadcast-note">Also sent to the channel</div>';
  const parent = ui.state.messages.find((m) => m.channel === message.channel && m.ts === message.threadTs);
  const snippet = snippetOf(parent);
  return `<div class="broadcast-note" data-testid="broadcast-note">replied to a thread${snippet ? ': ' : ''}<span class="thread-link" data-thread="${escapeHtml(message.threadTs)}">${escapeHtml(snippet || 'view thread')}</span></div>`;
}

/** A message as drawn in the channel (`place` 'channel') or in its thread's panel ('thread'). */
function messageHtml(message, place = 'channel') {
  const where = { channel: message.channel, messageTs: message.ts };
  const bot = message.author === 'UEVENTOPS';
  // A streamed message shows its plan and steps above the blocks it ends with.
  const body = `${message.stream ? streamHtml(message.stream) : ''}${message.blocks.length > 0 || !message.stream ? contentHtml(message, where) : ''}`;
  const files = (message.files ?? [])
    .map(
      (file) =>
        `<div class="file" data-testid="file"><button type="button" class="file-open" data-file="${escapeHtml(file.id)}" title="Open">📎 ${escapeHtml(file.title)}</button> <span class="meta">(${escapeHtml(file.name)}, ${file.content.length} bytes)</span></div>`,
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
  // Slack offers an app's message shortcuts on every message but the ephemeral ones.
  const more =
    !message.ephemeralFor && MESSAGE_SHORTCUTS.length > 0
      ? `<button type="button" class="more-actions" data-testid="more-actions" data-more="${escapeHtml(message.ts)}" data-more-channel="${escapeHtml(message.channel)}" title="More actions" aria-label="More actions">⋮</button>`
      : '';
  return `<div class="message ${message.ephemeralFor ? 'ephemeral' : ''}" data-testid="${message.ephemeralFor ? 'ephemeral' : 'message'}" data-ts="${message.ts}">${more}
    <div class="avatar ${bot ? '' : 'person'}">${bot ? 'e' : escapeHtml(authorName(message.author).charAt(0))}</div>
    <div class="body"><div class="meta"><b>${escapeHtml(authorName(message.author))}</b>${bot ? 'APP' : ''} ${message.edited ? '<span class="edited">(edited)</span>' : ''}</div>
    ${ephemeral}${broadcastHtml(message, place)}${body}${unfurls}${entityCardsHtml(message, reader().tz)}${files}${thread}</div></div>`;
}

function render() {
  const state = ui.state;
  const users = $('#user');
  if (users.options.length === 0) {
    users.innerHTML = state.users.map((u) => `<option value="${u.id}">${escapeHtml(u.name)}</option>`).join('');
  }
  users.value = ui.user;
  // The zone under the name: beside it in the select, the longer names did not fit.
  $('#user-zone').textContent = state.users.find((u) => u.id === ui.user)?.tz ?? '';
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
    $('#messages').innerHTML = list.map((message) => messageHtml(message)).join('');
    $('#messages').scrollTop = $('#messages').scrollHeight;
    $('#composer').hidden = false;
  }
  renderThread();
  renderFlexpane();
  renderModal();
  drawCharts();
}

/** The signed-in person's Work Object flexpane, beside the channel, while it is open. */
function renderFlexpane() {
  const panel = $('#flexpane');
  const flexpane = ui.state.flexpane;
  panel.hidden = !flexpane;
  panel.innerHTML = flexpane ? flexpaneHtml(flexpane, reader().tz) : '';
}

function renderThread() {
  const panel = $('#thread');
  if (!ui.thread) {
    panel.hidden = true;
    return;
  }
  const replies = ui.state.messages.filter((m) => m.threadTs === ui.thread);
  panel.hidden = false;
  panel.innerHTML = `<div class="meta"><b>Thread</b> <a href="#" id="close-thread">close</a></div>${replies.map((reply) => messageHtml(reply, 'thread')).join('')}`;
  drawCharts(panel);
}

/** What was entered in each view a pushed view went over, by view id. */
const enteredUnder = new Map();

function renderModal() {
  // The top of the modal's stack: a pushed view comes after the view under it.
  const modal = ui.state.views.findLast((v) => v.kind === 'modal');
  const overlay = $('#overlay');
  if (!modal) {
    overlay.hidden = true;
    overlay.innerHTML = '';
    overlay.dataset.view = '';
    return;
  }
  // Keep what the person typed while the state refreshes under an open modal; redraw it when the
  // bot updated the view (a new hash) or answered with errors.
  if (
    overlay.dataset.view === modal.id &&
    overlay.dataset.hash === modal.hash &&
    overlay.dataset.errors === JSON.stringify(modal.errors ?? {})
  )
    return;
  // Slack keeps what was entered in an input whose block and action ids the updated view keeps,
  // and in a view under a pushed one, shown again as it was left when the pushed one closes.
  if (overlay.dataset.view && overlay.dataset.view !== modal.id)
    enteredUnder.set(overlay.dataset.view, readValues(overlay));
  const typed = overlay.dataset.view === modal.id ? readValues(overlay) : (enteredUnder.get(modal.id) ?? {});
  overlay.dataset.view = modal.id;
  overlay.dataset.hash = modal.hash;
  overlay.dataset.errors = JSON.stringify(modal.errors ?? {});
  overlay.hidden = false;
  const view = modal.view;
  overlay.innerHTML = `<div class="modal" data-testid="modal" data-view="${modal.id}">
    <h2>${plainOf(view.title)}</h2>
    <div class="content">${blocksHtml(view.blocks ?? [], { viewId: modal.id, errors: modal.errors })}</div>
    <footer><button data-close="${modal.id}">${plainOf(view.close, 'Cancel')}</button>
    ${view.submit ? `<button class="primary" data-submit="${modal.id}">${plainOf(view.submit)}</button>` : ''}</footer></div>`;
  restoreValues(overlay, typed);
}

/** The modal's input values in Slack's `view.state.values` shape. */
function readValues(root) {
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
const tickedOptions = (group) =>
  [...group.querySelectorAll('input[type=checkbox]:checked')].map((box) => ({
    text: JSON.parse(box.dataset.text),
    value: box.value,
  }));

function restoreValues(root, values) {
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

// ---- what a person does ---------------------------------------------------------------------

/**
 * A button, a select, an overflow option, a checkbox or a time: a block action. In a modal it
 * carries the form's state, as Slack's does (`view.state.values`).
 */
async function act(where, element, extra) {
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
const inputElement = (input) => ({ action_id: input.dataset.action, type: input.dataset.type });

/** Slack's confirm dialog, when the element asks for one. */
function confirmThen(element, go) {
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
    const chosen = (answer.options ?? []).find((o) => o.value === value);
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

/** Where the page finds a file a message carries, by id. */
function fileById(id) {
  for (const message of ui.state?.messages ?? []) {
    const file = (message.files ?? []).find((each) => each.id === id);
    if (file) return file;
  }
  return undefined;
}

/** A file opens as in Slack: its content in a viewer over the page, with a download. */
function openFile(id) {
  const file = fileById(id);
  if (!file) return;
  document.querySelector('#file-viewer')?.remove();
  const viewer = document.createElement('div');
  viewer.id = 'file-viewer';
  viewer.dataset.testid = 'file-viewer';
  const href = URL.createObjectURL(new Blob([file.content], { type: 'application/octet-stream' }));
  viewer.innerHTML = `<div class="modal file-modal"><h2>${escapeHtml(file.title)}</h2>
    <div class="content"><div class="meta">${escapeHtml(file.name)} · ${file.content.length} bytes</div><pre>${escapeHtml(file.content)}</pre></div>
    <footer><a class="download" href="${href}" download="${escapeHtml(file.name)}">Download</a><button type="button" data-close-file>Close</button></footer></div>`;
  document.body.append(viewer);
}

/** A message's More actions menu: the app's message shortcuts, as Slack lists them. */
function openMoreActions(button) {
  document.querySelector('#more-actions-menu')?.remove();
  const menu = document.createElement('div');
  menu.id = 'more-actions-menu';
  menu.dataset.testid = 'message-shortcuts';
  menu.innerHTML = `<div class="menu-title">eventops</div>${MESSAGE_SHORTCUTS.map(
    (shortcut) =>
      `<button type="button" data-shortcut="${escapeHtml(shortcut.callbackId)}" data-shortcut-channel="${escapeHtml(button.dataset.moreChannel)}" data-shortcut-ts="${escapeHtml(button.dataset.more)}">${escapeHtml(shortcut.name)}</button>`,
  ).join('')}`;
  const box = button.getBoundingClientRect();
  menu.style.top = `${Math.round(box.bottom + 4)}px`;
  menu.style.left = `${Math.round(Math.max(8, box.right - 220))}px`;
  document.body.append(menu);
}

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

refresh();
