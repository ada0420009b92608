/**
 * Slack reads every `<...>` in message text as a link, a mention or a ping, so the only ones we
 * may send are the tokens the helpers in mrkdwn.ts build, well-formed. Anything else, in our own
 * template text as much as in a value, is a bug: `/events help` once showed `<id or name>` as a link.
 */
const TOKENS = /<!date\^-?\d+\^[^<>|&]+\|[^<>]*>|<@[UW][A-Z0-9]+>|<#[CGD][A-Z0-9]+>/g;

/** Keys whose strings Slack never shows as text. */
export const NOT_TEXT: ReadonlySet<string> = new Set([
  'type',
  'action_id',
  'block_id',
  'callback_id',
  'value',
  'private_metadata',
  'style',
  'min_value',
  'max_value',
]);

/**
 * Every shown string in `json` whose `<` or `>` is not part of a helper's token. In `plain_text`
 * Slack reads no tokens at all, so there even a well-formed one is stray.
 */
export function strayMarkup(json: unknown, path = '$', plain = false, found: string[] = []): string[] {
  if (typeof json === 'string') {
    if (/[<>]/.test(plain ? json : json.replace(TOKENS, ''))) found.push(`${path}: ${json}`);
  } else if (Array.isArray(json)) {
    json.forEach((item, index) => {
      strayMarkup(item, `${path}[${index}]`, false, found);
    });
  } else if (typeof json === 'object' && json !== null) {
    const isPlain = (json as { type?: unknown }).type === 'plain_text';
    for (const [key, item] of Object.entries(json)) {
      if (!NOT_TEXT.has(key)) strayMarkup(item, `${path}.${key}`, isPlain && key === 'text', found);
    }
  }
  return found;
}
