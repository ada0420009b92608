/** Text as HTML: every piece of outside text enters the page's markup through this. */
export const escapeHtml = (text) =>
  String(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);

/** Slack's three entities back to characters (Slack decodes them for display). */
export const decodeEntities = (text) =>
  String(text).replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
