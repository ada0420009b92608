import type { App } from '@slack/bolt';
import { plainMessage } from '../../../render/block-kit.js';
import { md } from '../../../render/mrkdwn.js';
import {
  REPORT_POST_IN_CHANNEL_ACTION,
  WATCH_SHARED_CHANNEL_ANYWAY_ACTION,
  WATCH_SHARED_CHANNEL_FOR_ME_ACTION,
} from '../../../render/shared-channel-blocks.js';
import { parseId } from '../../../ticketing/ids.js';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { ackFirst } from '../../replies/ack-first.js';
import { buttonValue } from '../../replies/button-value.js';
import { respondPrivately } from '../../replies/respond-safely.js';
import { askForReport } from '../../reports/ask-for-report.js';
import { parseEventsCommand } from '../commands/command-parser.js';
import { handleWatchCommand } from '../commands/watch-command.js';

/**
 * The buttons offered where figures were kept out of a channel shared with another organization:
 * post the report there after all, or set the watch there anyway or for the person. The channel is
 * the one the answer was given in (Slack names it), never one a button's value names.
 */
export function registerSharedChannelActions(app: App, deps: SlackDeps): void {
  app.action(REPORT_POST_IN_CHANNEL_ACTION, async ({ ack, action, body, client, respond, context }) => {
    await ackFirst(ack);
    const channelId = body.channel?.id;
    let asked: { e?: unknown; l?: unknown };
    try {
      asked = JSON.parse(buttonValue(action)) as typeof asked;
    } catch {
      return;
    }
    if (!channelId || typeof asked.e !== 'string') return;
    let eventId: string;
    try {
      eventId = parseId('event', asked.e);
    } catch {
      return;
    }
    // One post however often the button is clicked (a double click, two replicas), counted done
    // only once it is posted: a refusal or a failure leaves the button usable, and stays private.
    const message =
      'container' in body && body.container ? (body.container as { message_ts?: unknown }).message_ts : undefined;
    const once = `post-in-channel:${channelId}:${typeof message === 'string' ? message : body.user.id}:${eventId}`;
    const claim = await deps.runs.begin(once).catch((error: unknown) => {
      deps.logger.warn('Could not tell whether the report was posted already; posting it', { error });
      return { kind: 'mine', owner: 'unclaimed' } as const;
    });
    if (claim.kind !== 'mine') {
      const said =
        claim.kind === 'done'
          ? md`The report is already posted in the channel.`
          : md`The report is on its way to the channel already.`;
      await respondPrivately(respond, plainMessage(said), deps.logger);
      return;
    }
    // A report flow that throws before it reaches its end never finishes the claim itself.
    try {
      await askForReport(deps, {
        teamId: context.teamId ?? context.enterpriseId,
        respond,
        client,
        channelId,
        userId: body.user.id,
        responseUrl: 'response_url' in body ? body.response_url : undefined,
        eventId,
        label: typeof asked.l === 'string' ? asked.l : eventId,
        postInChannel: { once, owner: claim.owner },
      });
    } catch (error) {
      await deps.runs.finish(once, claim.owner, false);
      throw error;
    }
  });

  for (const [actionId, personal] of [
    [WATCH_SHARED_CHANNEL_ANYWAY_ACTION, false],
    [WATCH_SHARED_CHANNEL_FOR_ME_ACTION, true],
  ] as const) {
    app.action(actionId, async ({ ack, action, body, respond }) => {
      await ackFirst(ack);
      const channelId = body.channel?.id;
      const command = parseEventsCommand(buttonValue(action));
      if (!channelId || command.kind !== 'watch') return;
      await handleWatchCommand(
        deps,
        { ...command, personal },
        { respond, channelId, userId: body.user.id, sharedChannelConfirmed: !personal },
      );
    });
  }
}
