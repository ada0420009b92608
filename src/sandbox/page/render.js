// The whole page drawn from the sandbox's state: channels, messages or the App Home, the thread,
// the flexpane and the modal.
import { blocksHtml } from './blocks.js';
import { drawCharts } from './charts.js';
import { escapeHtml } from './escape-html.js';
import { messageHtml } from './message-html.js';
import { renderModal } from './modal.js';
import { $, reader, ui } from './ui.js';
import { flexpaneHtml } from './work-objects.js';

export function render() {
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

export function renderThread() {
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
