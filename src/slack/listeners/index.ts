import type { App } from '@slack/bolt';
import type { SlackDeps } from '../deps/slack-deps.js';
import { registerActions } from './actions/index.js';
import { registerCommands } from './commands/index.js';
import { registerEvents } from './events/index.js';
import { registerHome } from './home/index.js';
import { registerShortcuts } from './shortcuts/index.js';
import { registerViews } from './views/index.js';
import { registerWorkflowSteps } from './workflow-steps/index.js';

/** Every listener, a folder a kind of request; each folder's `index.ts` registers its own. */
export function registerListeners(app: App, deps: SlackDeps): void {
  registerCommands(app, deps);
  registerActions(app, deps);
  registerViews(app, deps);
  registerShortcuts(app, deps);
  registerHome(app, deps);
  registerEvents(app, deps);
  registerWorkflowSteps(app, deps);
}
