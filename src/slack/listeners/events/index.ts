import type { App } from '@slack/bolt';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { registerEntityDetails } from './entity-details.js';
import { registerLinkUnfurls } from './link-shared.js';
import { registerSharingChanges } from './sharing-changes.js';

/**
 * The Events API events besides App Home's: event page links unfurled, when the bot knows the
 * page, and their Work Objects' flexpanes; conversations and people whose readers changed (the figures rule asks again).
 */
export function registerEvents(app: App, deps: SlackDeps): void {
  if (deps.eventLinks) {
    registerLinkUnfurls(app, deps, deps.eventLinks);
    registerEntityDetails(app, deps, deps.eventLinks);
  }
  registerSharingChanges(app, deps);
}
