import type { App } from '@slack/bolt';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { registerLinkUnfurls } from './link-shared.js';
import { registerSharingChanges } from './sharing-changes.js';

/**
 * The Events API events besides App Home's: event page links unfurled, when the bot knows the
 * page; conversations and people whose readers changed (the figures rule asks again).
 */
export function registerEvents(app: App, deps: SlackDeps): void {
  if (deps.eventLinks) registerLinkUnfurls(app, deps, deps.eventLinks);
  registerSharingChanges(app, deps);
}
