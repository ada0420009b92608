import type { App } from '@slack/bolt';
import { helpMessage, usageMessage } from '../../render/help-blocks.js';
import { parseEventsCommand } from '../command-parser.js';
import type { SlackDeps } from '../deps.js';
import { respondPrivately } from '../respond-safely.js';
import { handleDigestCommand } from './digest-command.js';
import { showUpcomingPage } from './list-events.js';
import { proposePromoChange } from './promo-command.js';
import { requestReport } from './request-report.js';
import { showEvent } from './show-event.js';

/** `/events ...`: acknowledged at once, whatever the API is doing; the answer follows. */
export function registerEventsCommand(app: App, deps: SlackDeps): void {
  app.command('/events', async ({ ack, command, respond, client }) => {
    await ack();
    const log = deps.logger.child({ command: '/events', user: command.user_id, channel: command.channel_id });
    const parsed = parseEventsCommand(command.text ?? '');
    log.info('Slash command', { subcommand: parsed.kind });
    switch (parsed.kind) {
      case 'invalid':
        await respondPrivately(respond, usageMessage(parsed.problem, parsed.usage), log);
        return;
      case 'help':
        await respondPrivately(respond, helpMessage(), log);
        return;
      case 'list':
        await showUpcomingPage(deps, respond, { cursor: undefined, offset: 0 }, 1, false);
        return;
      case 'show':
        await showEvent(deps, respond, parsed.eventId);
        return;
      case 'report':
        await requestReport(deps, {
          respond,
          client,
          channelId: command.channel_id,
          userId: command.user_id,
          eventId: parsed.eventId,
        });
        return;
      case 'promo':
        await proposePromoChange(deps, { respond, client, userId: command.user_id, ...parsed });
        return;
      case 'digest':
        await handleDigestCommand(deps, deps.digests, {
          respond,
          client,
          channelId: command.channel_id,
          userId: command.user_id,
          args: parsed.args,
        });
        return;
    }
  });
}
