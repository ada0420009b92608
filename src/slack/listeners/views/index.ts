import type { App } from '@slack/bolt';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { registerEventModals } from './event-modals.js';
import { registerWatchModal } from './watch-modal.js';

/** The modals: their submissions, and the pickers and actions inside them. */
export function registerViews(app: App, deps: SlackDeps): void {
  registerWatchModal(app, deps);
  registerEventModals(app, deps);
}
