import { escapeHtml } from './escape-html.js';
import { MESSAGE_SHORTCUTS } from './ui.js';

/** A message's More actions menu: the app's message shortcuts, as Slack lists them. */
export function openMoreActions(button) {
  document.querySelector('#more-actions-menu')?.remove();
  const menu = document.createElement('div');
  menu.id = 'more-actions-menu';
  menu.dataset.testid = 'message-shortcuts';
  menu.innerHTML = `<div class="menu-title">eventops</div>${MESSAGE_SHORTCUTS.map(
    (shortcut) =>
      `<button type="button" data-shortcut="${escapeHtml(shortcut.callbackId)}" data-shortcut-channel="${escapeHtml(button.dataset.moreChannel)}" data-shortcut-ts="${escapeHtml(button.dataset.more)}">${escapeHtml(shortcut.name)}</button>`,
  ).join('')}`;
  const box = button.getBoundingClientRect();
  menu.style.top = `${Math.round(box.bottom + 4)}px`;
  menu.style.left = `${Math.round(Math.max(8, box.right - 220))}px`;
  document.body.append(menu);
}
