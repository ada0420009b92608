// A message as Slack draws it: author, blocks, files, unfurls, its thread and its menu.
import { blocksHtml } from './blocks.js';
import { escapeHtml } from './escape-html.js';
import { mrkdwn } from './mrkdwn.js';
import { streamHtml } from './stream.js';
import { MESSAGE_SHORTCUTS, reader, ui } from './ui.js';
import { entityCardsHtml } from './work-objects.js';

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
export function messageHtml(message, place = 'channel') {
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
