// What the page shows now (whose view, which channel or pane, the sandbox's last state), shared by
// every part of the page.
export const ui = {
  user: 'UEDITOR01',
  channel: 'CGENERAL01',
  /** 'channel' shows messages, 'home' the App Home tab. */
  pane: 'channel',
  thread: undefined,
  state: undefined,
  version: -1,
};

export const $ = (selector) => document.querySelector(selector);
/** The bot's "change promo quantity" shortcut, written into the page by the sandbox from the bot's own constant. */
export const PROMO_SHORTCUT = document.querySelector('meta[name="promo-shortcut"]').content;
/** The app's message shortcuts (a message's More actions menu): `[{ callbackId, name }]`, from the sandbox. */
export const MESSAGE_SHORTCUTS = JSON.parse(document.querySelector('meta[name="message-shortcuts"]').content);

/** Who reads the page's text: names for mentions and the signed-in person's timezone for dates. */
export const reader = () => ({
  users: ui.state?.users ?? [],
  channels: ui.state?.channels ?? [],
  tz: ui.state?.users.find((user) => user.id === ui.user)?.tz ?? 'UTC',
});
