import type { App } from '@slack/bolt';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { registerShowEventShortcut } from './show-event-shortcut.js';

/** The message and global shortcuts (the promo one opens a modal, so it lives in `views/`). */
export function registerShortcuts(app: App, deps: SlackDeps): void {
  registerShowEventShortcut(app, deps);
}
