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

/** A link that opens apart from the page; its address and text escaped (callers pass only http(s) and mailto). */
const linkHtml = (href, text) =>
  `<a href="${escapeHtml(href)}" target="_blank" rel="noreferrer">${escapeHtml(text)}</a>`;

/**
 * An http(s) URL written plainly, as Slack makes a link of (a person's pasted link, a bot's bare
 * URL); only these two schemes, so `javascript:` and the like stay text. Not inside a word, nor
 * across the markers of held pieces.
 */
const BARE_URL = /(^|[^\p{L}\p{N}/])(https?:\/\/[^\s<>\uE000\uE001]+)/giu;

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
    render: ([href], label) => linkHtml(href, label || href),
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

/** The style each marker gives. */
const STYLES = { '*': 'b', _: 'i', '~': 's' };
const WORD = /[\p{L}\p{N}]/u;
const SPACE = /\s/;

/**
 * A marker opens a style at the start of the line or after a character that is not a letter or a
 * digit (a space, punctuation), with no space (nor the same marker) just after it; it closes before
 * the end of the line or such a character, with no space (nor the same marker) just before it. So `snake_case` and `2*3*4` stay as typed,
 * and so do `* spaced *` and `~100 to ~200`. Styles nest (`*bold _and italic_*`); the line is all
 * they span.
 */
function styled(text) {
  let html = '';
  let plain = '';
  for (let i = 0; i < text.length; i += 1) {
    const marker = text[i];
    const tag = Object.hasOwn(STYLES, marker) ? STYLES[marker] : undefined;
    const next = text[i + 1] ?? ' ';
    const opens = tag && (i === 0 || !WORD.test(text[i - 1])) && !SPACE.test(next) && next !== marker;
    let close = -1;
    if (opens) {
      for (let j = i + 2; j < text.length; j += 1) {
        const [before, after] = [text[j - 1], text[j + 1] ?? ' '];
        if (text[j] === marker && !SPACE.test(before) && before !== marker && !WORD.test(after) && after !== marker) {
          close = j;
          break;
        }
      }
    }
    if (close === -1) {
      plain += marker;
      continue;
    }
    html += `${escapeHtml(plain)}<${tag}>${styled(text.slice(i + 1, close))}</${tag}>`;
    plain = '';
    i = close;
  }
  return html + escapeHtml(plain);
}

/**
 * Inline styles and emoji of one line of text (entities decoded). Code spans are held apart
 * (Slack formats nothing in them), and so are emoji, whose markup the styles must not touch.
 */
function inline(line, hold) {
  const apart = line
    .replace(/`([^`]+)`/g, (_, code) => hold(CODE, `<code>${escapeHtml(code)}</code>`))
    .replace(BARE_URL, (_, start, url) => {
      // Punctuation closing a sentence is not the link's (`see https://x.com/a.`), nor an unmatched `)`.
      let link = url.replace(/[.,;:!?'"*_~]+$/, '');
      while (link.endsWith(')') && link.split('(').length < link.split(')').length) link = link.slice(0, -1);
      return `${start}${hold(TOKEN, linkHtml(link, link))}${url.slice(link.length)}`;
    })
    .replace(/:([a-z0-9_+-]+):/g, (whole, name) => {
      const emoji = emojiFor(name);
      return emoji ? hold(TOKEN, `<span class="emoji" title="${escapeHtml(whole)}">${emoji}</span>`) : whole;
    });
  return styled(apart);
}

/**
 * Slack mrkdwn as HTML: tokens first, then entities, code blocks, quotes, code spans, emoji and styles.
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
      const text = decodeEntities(part);
      if (index % 2 === 1) return `<pre>${escapeHtml(text)}</pre>`;
      return text
        .split('\n')
        .map((line) =>
          line.startsWith('> ') ? `<blockquote>${inline(line.slice(2), hold)}</blockquote>` : inline(line, hold),
        )
        .join('<br>');
    })
    .join('');
  // Code spans may hold tokens: put them back first.
  return restore(restore(html, CODE), TOKEN);
}
