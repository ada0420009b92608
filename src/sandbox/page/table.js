// Slack's `table` block as an HTML table, and the `rich_text` its cells (and a rich_text block) may
// hold. The first row is the header, as Slack shows it; `column_settings` aligns a column and
// lets it wrap (Slack keeps a cell on one line unless its column says `is_wrapped`).
import { emojiFor } from './emoji.js';
import { escapeHtml } from './escape-html.js';

/** Only these schemes become links; anything else shows as its text. */
const LINKABLE = /^(https?:|mailto:)/i;

const nameOf = (list, id) => list?.find((each) => each.id === id)?.name;

/** One inline element of a rich text section, as HTML. `reader` names users and channels. */
function inlineHtml(element, reader) {
  switch (element.type) {
    case 'text': {
      let html = escapeHtml(element.text ?? '');
      const style = element.style ?? {};
      if (style.code) html = `<code>${html}</code>`;
      if (style.bold) html = `<b>${html}</b>`;
      if (style.italic) html = `<i>${html}</i>`;
      if (style.strike) html = `<s>${html}</s>`;
      return html;
    }
    case 'link': {
      const text = escapeHtml(element.text || element.url || '');
      return LINKABLE.test(element.url ?? '')
        ? `<a href="${escapeHtml(element.url)}" target="_blank" rel="noopener noreferrer">${text}</a>`
        : text;
    }
    case 'emoji':
      return escapeHtml(emojiFor(element.name) ?? `:${element.name}:`);
    case 'user':
      return `<span class="mention">@${escapeHtml(nameOf(reader?.users, element.user_id) ?? element.user_id)}</span>`;
    case 'channel':
      return `<span class="mention">#${escapeHtml(nameOf(reader?.channels, element.channel_id) ?? element.channel_id)}</span>`;
    case 'broadcast':
      return `<span class="mention">@${escapeHtml(element.range ?? 'here')}</span>`;
    case 'date':
      return escapeHtml(element.fallback ?? new Date(Number(element.timestamp) * 1000).toISOString());
    default:
      return escapeHtml(element.text ?? '');
  }
}

const inlinesHtml = (elements, reader) => (elements ?? []).map((element) => inlineHtml(element, reader)).join('');

/** A rich_text object's content (sections, lists, code blocks, quotes), as HTML. */
export function richTextHtml(richText, reader) {
  return (richText?.elements ?? [])
    .map((part) => {
      switch (part.type) {
        case 'rich_text_section':
          return `<span class="rich-section">${inlinesHtml(part.elements, reader)}</span>`;
        case 'rich_text_preformatted':
          return `<pre>${inlinesHtml(part.elements, reader)}</pre>`;
        case 'rich_text_quote':
          return `<blockquote>${inlinesHtml(part.elements, reader)}</blockquote>`;
        case 'rich_text_list': {
          const tag = part.style === 'ordered' ? 'ol' : 'ul';
          const items = (part.elements ?? []).map((item) => `<li>${inlinesHtml(item.elements, reader)}</li>`);
          return `<${tag}>${items.join('')}</${tag}>`;
        }
        default:
          return '';
      }
    })
    .join('');
}

/** One cell: `raw_text` as its text, `rich_text` as rich text. */
const cellHtml = (cell, reader) =>
  cell?.type === 'rich_text' ? richTextHtml(cell, reader) : escapeHtml(cell?.text ?? '');

const ALIGNS = new Set(['left', 'center', 'right']);

/** A table block as an HTML table: the first row its header, each column aligned as its settings say. */
export function tableHtml(block, reader) {
  const settings = block.column_settings ?? [];
  const attributes = (i) => {
    const align = ALIGNS.has(settings[i]?.align) ? settings[i].align : 'left';
    return `style="text-align:${align}" class="${settings[i]?.is_wrapped ? 'wrapped' : ''}"`;
  };
  const [header, ...rows] = block.rows ?? [];
  const head = header
    ? `<thead><tr>${header.map((cell, i) => `<th scope="col" ${attributes(i)}>${cellHtml(cell, reader)}</th>`).join('')}</tr></thead>`
    : '';
  const body = rows
    .map((row) => `<tr>${row.map((cell, i) => `<td ${attributes(i)}>${cellHtml(cell, reader)}</td>`).join('')}</tr>`)
    .join('');
  return `<div class="block table-box"><table class="table" data-testid="table">${head}<tbody>${body}</tbody></table></div>`;
}
