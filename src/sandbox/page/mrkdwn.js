// Slack mrkdwn to HTML, as Slack shows it (https://api.slack.com/reference/surfaces/formatting).
// Pure: who reads it (names for mentions, the timezone for dates) is passed in.
import { emojiFor } from './emoji.js';
import { decodeEntities, escapeHtml } from './escape-html.js';

/**
 * @typedef {object} Reader who reads the text
 * @property {{ id: string, name: string }[]} users names for `<@U...>`
 * @property {{ id: string, name: string }[]} channels names for `<#C...>`
 * @property {string} tz the zone `<!date^...>` shows in
 */

// Pieces rendered apart (tokens, code spans) wait behind these while the rest is formatted. They
// are private-use characters, removed from the text first, so a message cannot forge one.
const TOKEN = '\uE000';
const CODE = '\uE001';

/** `<!date^unix^{tokens}|fallback>` in the reader's own timezone. */
function formatDate(unix, format, zone) {
  const at = new Date(unix * 1000);
  const part = (options) => new Intl.DateTimeFormat('en-US', { timeZone: zone, ...options }).format(at);
  return format
    .replaceAll('{date_short_pretty}', part({ month: 'short', day: 'numeric', year: 'numeric' }))
    .replaceAll('{date_short}', part({ month: 'short', day: 'numeric', year: 'numeric' }))
    .replaceAll('{date_long}', part({ weekday: 'long', month: 'long', day: 'numeric', year: 'numeric' }))
    .replaceAll('{date}', part({ month: 'long', day: 'numeric', year: 'numeric' }))
    .replaceAll('{time}', part({ hour: 'numeric', minute: '2-digit' }));
}

const mention = (text) => `<span class="mention">${escapeHtml(text)}</span>`;
const nameOf = (list, id) => list.find((each) => each.id === id)?.name;

/**
 * The `<...>` tokens Slack knows, each matched whole: anything else (`<!date^x>`, `<@>`) is not a
 * token, and shows as the text it is. The date's seconds are capped at 11 digits, where `Date` is
 * still valid.
 */
const TOKENS = [
  {
    pattern: /^@([UW][A-Z0-9]+)$/,
    render: ([, id], label, reader) => mention(`@${nameOf(reader.users, id) ?? (label || id)}`),
  },
  {
    pattern: /^#(C[A-Z0-9]+)$/,
    render: ([, id], label, reader) => mention(`#${nameOf(reader.channels, id) ?? (label || id)}`),
  },
  { pattern: /^!(here|channel|everyone)$/, render: ([, name]) => mention(`@${name}`) },
  { pattern: /^!subteam\^(S[A-Z0-9]+)$/, render: ([, id], label) => mention(label || `@${id}`) },
  {
    pattern: /^!date\^(\d{1,11})\^([^^]+)(?:\^\S+)?$/,
    render: ([, unix, format], label, reader) =>
      `<span class="date" title="${escapeHtml(label ?? '')}">${escapeHtml(formatDate(Number(unix), format, reader.tz))}</span>`,
  },
  {
    pattern: /^(?:https?:\/\/|mailto:)\S+$/,
    render: ([href], label) =>
      `<a href="${escapeHtml(href)}" target="_blank" rel="noreferrer">${escapeHtml(label || href)}</a>`,
  },
];

/** One `<...>` token: a mention, a channel, a broadcast, a date or a link; anything else as text. */
function renderToken(inner, reader) {
  const bar = inner.indexOf('|');
  const target = decodeEntities(bar === -1 ? inner : inner.slice(0, bar));
  const label = bar === -1 ? undefined : decodeEntities(inner.slice(bar + 1));
  for (const { pattern, render } of TOKENS) {
    const match = pattern.exec(target);
    if (match) return render(match, label, reader);
  }
  return escapeHtml(decodeEntities(`<${inner}>`));
}

/**
 * Inline styles and emoji of one line that is already HTML-escaped. Code spans are held apart (Slack
 * formats nothing in them), and so are emoji, whose markup the styles must not touch.
 */
function inline(html, hold) {
  return html
    .replace(/`([^`]+)`/g, (_, code) => hold(CODE, `<code>${code}</code>`))
    .replace(/:([a-z0-9_+-]+):/g, (whole, name) => {
      const emoji = emojiFor(name);
      return emoji ? hold(TOKEN, `<span class="emoji" title="${escapeHtml(whole)}">${emoji}</span>`) : whole;
    })
    .replace(/(^|[\s(])\*([^*\n]+)\*(?=[\s).,:;!?]|$)/g, '$1<b>$2</b>')
    .replace(/(^|[\s(])_([^_\n]+)_(?=[\s).,:;!?]|$)/g, '$1<i>$2</i>')
    .replace(/(^|[\s(])~([^~\n]+)~(?=[\s).,:;!?]|$)/g, '$1<s>$2</s>');
}

/**
 * Slack mrkdwn as HTML: tokens first, then entities, code blocks, quotes, inline styles and emoji.
 * @param {string} text
 * @param {Reader} reader
 */
export function mrkdwn(text, reader) {
  const held = { [TOKEN]: [], [CODE]: [] };
  const hold = (kind, html) => {
    held[kind].push(html);
    return `${kind}${held[kind].length - 1}${kind}`;
  };
  const restore = (html, kind) =>
    html.replace(new RegExp(`${kind}(\\d+)${kind}`, 'g'), (_, index) => held[kind][Number(index)]);
  const clean = String(text).replaceAll(TOKEN, '').replaceAll(CODE, '');
  const parts = clean.replace(/<([^<>]+)>/g, (_, inner) => hold(TOKEN, renderToken(inner, reader))).split('```');
  const html = parts
    .map((part, index) => {
      const escaped = escapeHtml(decodeEntities(part));
      if (index % 2 === 1) return `<pre>${escaped}</pre>`;
      return escaped
        .split('\n')
        .map((line) =>
          line.startsWith('&gt; ') ? `<blockquote>${inline(line.slice(5), hold)}</blockquote>` : inline(line, hold),
        )
        .join('<br>');
    })
    .join('');
  // Code spans may hold tokens: put them back first.
  return restore(restore(html, CODE), TOKEN);
}
