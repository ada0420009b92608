import type { App } from '@slack/bolt';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { registerAppHome } from './app-home.js';

/** App Home: the tab drawn when a person opens it. */
export function registerHome(app: App, deps: SlackDeps): void {
  registerAppHome(app, deps);
}
