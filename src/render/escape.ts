/**
 * Escapes text we did not write for Slack mrkdwn and plain_text: mentions, `<!channel>`,
 * user-group pings and links exist only as `<...>` sequences, so escaping `&`, `<` and `>` leaves
 * nothing for Slack to turn into one.
 */
export function escapeText(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** Escapes, then truncates without splitting an entity such as `&amp;`. */
export function safeText(text: string, max: number): string {
  const escaped = escapeText(text);
  if (escaped.length <= max) return escaped;
  let cut = escaped.slice(0, Math.max(0, max - 1));
  const amp = cut.lastIndexOf('&');
  if (amp >= 0 && !cut.slice(amp).includes(';')) cut = cut.slice(0, amp);
  return `${cut}…`;
}
