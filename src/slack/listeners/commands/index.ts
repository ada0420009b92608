import type { App } from '@slack/bolt';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { registerEventsCommand } from './events-command.js';

/** The slash commands: `/events` and its subcommands. */
export function registerCommands(app: App, deps: SlackDeps): void {
  registerEventsCommand(app, deps);
}
