/**
 * The one boundary between outside text and Slack markup. Mentions, `<!channel>`, user-group
 * pings and links exist only as `<...>` sequences, so text we did not write becomes `Mrkdwn`
 * only by escaping `&`, `<` and `>`. Every block builder and `SlackMessage` takes `Mrkdwn`, so
 * passing an unescaped `string` is a type error, and escaping twice is one too. Our own template
 * text is escaped as well (`md`): a `<...>` sequence comes only from the token helpers below.
 * https://docs.slack.dev/messaging/formatting-message-text#escaping
 */

declare const brand: unique symbol;

/** Text that is safe to send as Slack mrkdwn: escaped outside text or markup this code wrote. */
export type Mrkdwn = string & { readonly [brand]: 'Mrkdwn' };

/** Rejects already-escaped text at compile time, so nothing is escaped twice. */
type Unescaped<T extends string> = T extends Mrkdwn ? never : T;

const asMrkdwn = (text: string) => text as Mrkdwn;

/** Escapes text we did not write (API records and error bodies, user input, Slack fields). */
export function escapeText<T extends string>(text: Unescaped<T>): Mrkdwn {
  return asMrkdwn(text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;'));
}

/**
 * Shortens markup to `max` characters without splitting an entity (`&amp;`) or a token such as
 * `<@U123>` or `<!date^...>`, which would leave a broken sequence for Slack to misread.
 */
export function shorten(text: Mrkdwn, max: number): Mrkdwn {
  if (text.length <= max) return text;
  let cut = text.slice(0, Math.max(0, max - 1));
  const amp = cut.lastIndexOf('&');
  if (amp >= 0 && !cut.slice(amp).includes(';')) cut = cut.slice(0, amp);
  const open = cut.lastIndexOf('<');
  if (open >= 0 && !cut.slice(open).includes('>')) cut = cut.slice(0, open);
  return asMrkdwn(`${cut}…`);
}

/** Escapes, then shortens: the usual way an API string reaches a block. */
export function clip<T extends string>(text: Unescaped<T>, max: number): Mrkdwn {
  return shorten(escapeText(text), max);
}

/** Slack's formatting marks, each with a look-alike that Slack does not read as one. */
const MARK_LOOKALIKES: Readonly<Record<string, string>> = { '*': '\u2217', _: '\u02cd', '~': '\u223c', '`': '\u02cb' };

/**
 * A name in mrkdwn as it is written: its `*`, `_`, `~` and backticks become look-alikes, so that
 * `*Bold* night` inside our own `*...*` is one bold name, not a styled word and stray asterisks.
 * Slack has no escape for them. Then escaped and shortened as `clip`.
 */
export function clipName<T extends string>(text: Unescaped<T>, max: number): Mrkdwn {
  return clip(
    text.replace(/[*_~`]/g, (mark) => MARK_LOOKALIKES[mark] ?? mark),
    max,
  );
}

/**
 * Template text is ours, but a `<...>` in it is still a link or a ping to Slack: help text such
 * as `/events show <id or name>` once rendered as a link. Only the angle brackets are escaped, so
 * `*bold*`, `` `code` `` and an entity written by hand still work.
 */
const templateText = (text: string) => text.replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/**
 * Markup from a template: the literal parts are ours (their `<` and `>` are escaped; tokens come
 * from the helpers below); every value must already be `Mrkdwn` (escaped or built here) or a
 * number. A plain string does not compile: wrap it in `escapeText`.
 */
export function md(strings: TemplateStringsArray, ...values: readonly (Mrkdwn | number)[]): Mrkdwn {
  let out = templateText(strings[0] ?? '');
  values.forEach((value, index) => {
    out += String(value) + templateText(strings[index + 1] ?? '');
  });
  return asMrkdwn(out);
}

/** Joins pieces of markup. */
export function joinMrkdwn(parts: readonly Mrkdwn[], separator: Mrkdwn = md`\n`): Mrkdwn {
  return asMrkdwn(parts.join(separator));
}

/** `<@U123>`: a mention of a Slack user id (anything else is escaped as text). */
export function mentionUser(userId: string): Mrkdwn {
  return /^[UW][A-Z0-9]{2,}$/.test(userId) ? asMrkdwn(`<@${userId}>`) : escapeText(userId);
}

/** `<#C123>`: a link to a Slack channel id (anything else is escaped as text). */
export function channelLink(channelId: string): Mrkdwn {
  return /^[CGD][A-Z0-9]{2,}$/.test(channelId) ? asMrkdwn(`<#${channelId}>`) : escapeText(channelId);
}

/**
 * `<!date^...>`: an instant in each reader's own timezone, with a fallback for old clients. With
 * no finite time or no format there is no token Slack could read, so the fallback stands alone.
 */
export function dateToken(epochMs: number, format: string, fallback: string): Mrkdwn {
  const safeFormat = format.replace(/[<>|&]/g, '');
  if (!Number.isFinite(epochMs) || !safeFormat) return escapeText(fallback);
  return asMrkdwn(`<!date^${Math.floor(epochMs / 1000)}^${safeFormat}|${escapeText(fallback)}>`);
}

/** `2026-12-01 08:55 UTC`: what clients that cannot render a date token show; `unknown` for no time. */
export const utcMinute = (epochMs: number): string =>
  Number.isFinite(epochMs) ? `${new Date(epochMs).toISOString().slice(0, 16).replace('T', ' ')} UTC` : 'unknown';

/** An instant in each reader's own zone ("Fri, Dec 4 at 14:30", or `format`), its UTC minute for old clients. */
export function readerInstant(epochMs: number, format = '{date_short_pretty} at {time}'): Mrkdwn {
  return dateToken(epochMs, format, utcMinute(epochMs));
}

/** A stored ISO instant in each reader's own zone; text that is no time is shown as given, clipped to `max`. */
export function readerIsoInstant(iso: string, max = 30): Mrkdwn {
  const at = Date.parse(iso);
  return Number.isFinite(at) ? readerInstant(at) : clip(iso, max);
}

/** A day in each reader's own zone ("Fri, Dec 4"), the UTC date for old clients. */
export function readerDay(epochMs: number): Mrkdwn {
  const fallback = Number.isFinite(epochMs) ? new Date(epochMs).toISOString().slice(0, 10) : 'an unknown day';
  return dateToken(epochMs, '{date_short_pretty}', fallback);
}

/** Inline code: backticks inside the text would end it early, so they are dropped. */
export function code<T extends string>(text: Unescaped<T>, max = 100): Mrkdwn {
  return md`\`${clip(text.replaceAll('`', "'"), max)}\``;
}
