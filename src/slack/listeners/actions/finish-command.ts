import type { App, RespondArguments, RespondFn } from '@slack/bolt';
import { warningMessage } from '../../../render/block-kit.js';
import { FINISH_COMMAND_ACTION } from '../../../render/event-blocks.js';
import { md } from '../../../render/mrkdwn.js';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { ackFirst } from '../../replies/ack-first.js';
import { buttonValue } from '../../replies/button-value.js';
import { respondPrivately } from '../../replies/respond-safely.js';
import { parseEventsCommand } from '../commands/command-parser.js';
import { handlePromoCommand } from '../commands/promo-command.js';
import { handleReportCommand } from '../commands/request-report.js';
import { handleWatchCommand } from '../commands/watch-command.js';

/** Answers in place of the choice whose button was clicked, and each answer after in place of the one before. */
const replacing =
  (respond: RespondFn): RespondFn =>
  (message) =>
    respond(
      typeof message === 'string'
        ? { text: message, replace_original: true }
        : ({ replace_original: true, ...message } as RespondArguments),
    );

/**
 * A button of a choice between events: "run this events command with this event". The value is
 * the command as typed with the event's id (`watch evt_…: sold >= 90% --me`), parsed and checked
 * again as if typed; who runs it and where come from the click, never from the value.
 */
export function registerFinishCommand(app: App, deps: SlackDeps): void {
  app.action(FINISH_COMMAND_ACTION, async ({ ack, action, body, respond, client, context }) => {
    await ackFirst(ack);
    const userId = body.user.id;
    const channelId = body.channel?.id;
    const command = parseEventsCommand(buttonValue(action));
    switch (command.kind) {
      case 'watch':
      case 'unwatch':
        // With no channel to set it in, a watch can only be the person's own.
        await handleWatchCommand(deps, channelId ? command : { ...command, personal: true }, {
          respond: replacing(respond),
          channelId: channelId ?? userId,
          userId,
        });
        return;
      case 'report':
        // The choice is used: its buttons go at once (the report may go to the channel, not here).
        await respond({
          replace_original: true,
          text: ':hourglass_flowing_sand: Requesting the report of the event you picked.',
        }).catch((error: unknown) => deps.logger.info('Could not replace a used choice', { error }));
        await handleReportCommand(deps, {
          teamId: context.teamId ?? context.enterpriseId,
          respond: replacing(respond),
          client,
          channelId: channelId ?? userId,
          userId,
          responseUrl: 'response_url' in body ? body.response_url : undefined,
          target: command.target,
        });
        return;
      case 'promo':
        await handlePromoCommand(
          deps,
          { respond, client },
          {
            userId,
            channelId: channelId ?? '',
            target: command.target,
            promo: command.promo,
            quantity: command.quantity,
          },
          { replaceFirst: true },
        );
        return;
      default:
        await respondPrivately(
          respond,
          warningMessage(md`That button does not work any more: type the command again.`),
          deps.logger,
        );
    }
  });
}
