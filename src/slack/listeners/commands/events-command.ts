import type { App } from '@slack/bolt';
import { plainMessage } from '../../../render/block-kit.js';
import { helpMessage, usageMessage } from '../../../render/help-blocks.js';
import { md } from '../../../render/mrkdwn.js';
import { MAX_PROMO_QUANTITY } from '../../../ticketing/promo-quantity.js';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { openReportModal, openWatchModal } from '../../modals/modal-openers.js';
import { openPromoFormFor } from '../../modals/promo-form.js';
import { ackFirst } from '../../replies/ack-first.js';
import { respondPrivately } from '../../replies/respond-safely.js';
import { parseEventsCommand } from './command-parser.js';
import { handleDigestCommand } from './digest-command.js';
import { handleFindCommand } from './find-command.js';
import { answerForecastAccuracy } from './forecast-accuracy.js';
import { handleMcpCommand } from './mcp-command.js';
import { handlePromoCommand } from './promo-command.js';
import { handleReportCommand } from './request-report.js';
import { showEvent } from './show-event.js';
import { showUpcomingPage } from './upcoming-page.js';
import { handleWatchCommand } from './watch-command.js';

/** `/events ...`: acknowledged at once, whatever the API is doing; the answer follows. */
export function registerEventsCommand(app: App, deps: SlackDeps): void {
  app.command('/events', async ({ ack, command, respond, client, context }) => {
    // The work waits until the commands that arrived meanwhile are acknowledged too.
    await ackFirst(ack);
    const log = deps.logger.child({ command: '/events', user: command.user_id, channel: command.channel_id });
    if (deps.work.stopping.aborted) {
      await respondPrivately(
        respond,
        plainMessage(md`:hourglass: eventops is restarting. Please try again in a minute.`),
        log,
      );
      return;
    }
    const parsed = parseEventsCommand(command.text ?? '');
    // Who asked, where, and how to answer them: what most subcommands are handed.
    const asker = { respond, client, channelId: command.channel_id, userId: command.user_id };
    // The asker's team, as Bolt's sayStream addresses a stream.
    const team = { teamId: context.teamId ?? context.enterpriseId };
    log.info('Slash command', { subcommand: parsed.kind });
    switch (parsed.kind) {
      case 'invalid':
        await respondPrivately(respond, usageMessage(parsed.problem, parsed.usage), log);
        return;
      case 'help':
        await respondPrivately(
          respond,
          helpMessage({ reportLimit: deps.reportLimit, maxQuantity: MAX_PROMO_QUANTITY }),
          log,
        );
        return;
      case 'list':
        await showUpcomingPage(
          deps,
          asker,
          { offset: 0, page: 1, range: parsed.filter.range, words: parsed.filter.words },
          false,
        );
        return;
      case 'show':
        await showEvent(deps, respond, parsed.target, {}, { userId: command.user_id, client });
        return;
      case 'find':
        await handleFindCommand(deps, respond, parsed.words);
        return;
      case 'report':
        await handleReportCommand(deps, {
          ...asker,
          ...team,
          responseUrl: command.response_url,
          target: parsed.target,
        });
        return;
      case 'promo-modal':
        await openPromoFormFor(deps, client, { ...asker, triggerId: command.trigger_id });
        return;
      case 'report-modal':
        await openReportModal(deps, client, { triggerId: command.trigger_id, channelId: command.channel_id });
        return;
      case 'promo': {
        const { target, promo, quantity } = parsed;
        await handlePromoCommand(deps, asker, { ...asker, target, promo, quantity });
        return;
      }
      case 'watch':
      case 'unwatch':
      case 'watches':
      case 'watches-thread-only':
        await handleWatchCommand(deps, parsed, asker);
        return;
      case 'watch-modal':
        await openWatchModal(deps, client, {
          triggerId: command.trigger_id,
          channelId: command.channel_id,
          personal: parsed.personal,
        });
        return;
      case 'forecast-accuracy':
        await answerForecastAccuracy(deps, respond, command.user_id, log);
        return;
      case 'mcp-token':
      case 'mcp-revoke':
        await handleMcpCommand(deps, parsed.kind, asker);
        return;
      case 'digest-on':
      case 'digest-off':
      case 'digest-status':
      case 'digest-now':
        await handleDigestCommand(deps, parsed, asker);
        return;
    }
  });
}
