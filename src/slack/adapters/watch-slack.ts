import type { webApi } from '@slack/bolt';
import { type Logger, silentLogger } from '../../logger.js';
import type { Metrics } from '../../observability/metrics.js';
import type { SlackMessage } from '../../render/block-kit.js';
import { code, md } from '../../render/mrkdwn.js';
import { watchAlertMessage } from '../../render/watch-alert-blocks.js';
import { watchCardMessage } from '../../render/watch-card-blocks.js';
import { watchPausedMessage } from '../../render/watch-outcome-blocks.js';
import { watchSummaryMessage } from '../../render/watch-summary-blocks.js';
import type { WatchChat, WatchMessages } from '../../watches/watch-chat.js';
import { FIGURES_PAUSE } from '../../watches/watch-figures.js';
import {
  dmConversations,
  findPosted,
  postCounted,
  repliedInThread,
  updateCounted,
} from '../replies/posted-messages.js';
import { channelProblem, personRefusal } from '../replies/slack-errors.js';

/** The watches' Slack side, through the app's client (which exists once the app does). */
export function watchSlack(
  client: () => webApi.WebClient,
  metrics: Metrics | undefined,
  logger: Logger = silentLogger,
): WatchChat<SlackMessage> {
  // A personal watch lives in the person's DM: its card is posted to the user id, and edited,
  // replied to and searched in the DM's own id.
  const conversation = dmConversations(client, metrics);
  const card = { logger, kind: 'watch card' };
  return {
    async postCard(channel, message, metadata) {
      const ts = await postCounted(client(), metrics, { channel, message, metadata }, card);
      if (!ts) throw new Error('Slack posted the card without a message id');
      return ts;
    },
    async updateCard(channel, ts, message) {
      await updateCounted(client(), metrics, { channel: await conversation(channel), ts, message }, card);
    },
    async reply(channel, threadTs, message, options) {
      await postCounted(
        client(),
        metrics,
        {
          channel: await conversation(channel),
          message,
          metadata: options.metadata,
          thread: { ts: threadTs, broadcast: options.broadcast },
        },
        { logger, kind: 'watch reply' },
      );
    },
    // A second of slack for the clocks of Slack and this machine.
    findCard: async (channel, metadata, sinceMs) =>
      (await findPosted(client(), await conversation(channel), metadata, sinceMs - 1_000))?.ts,
    findReply: async (channel, threadTs, metadata) =>
      repliedInThread(client(), await conversation(channel), threadTs, metadata),
    notify: async (userId, message) => {
      await postCounted(client(), metrics, { channel: userId, message });
    },
    // A personal watch's person who left or was deactivated refuses for good, as a channel does.
    channelRefusal: personRefusal,
  };
}

/** The watch messages, rendered once; a refusal code becomes the sentence the person reads. */
export const watchMessages: WatchMessages<SlackMessage> = {
  card: (input) => watchCardMessage(input),
  alert: (input) => watchAlertMessage(input),
  summary: (input) => watchSummaryMessage(input),
  paused: (watch, reason) => watchPausedMessage(watch, pauseWords(reason)),
};

/** Why a watch was paused, as its owner reads it. */
function pauseWords(reason: string) {
  switch (reason) {
    case FIGURES_PAUSE.shared:
      return md`the channel is shared with another organization, and its card shows sales and revenue; run the watch command there again to confirm, or add \`--me\` to watch it for yourself`;
    case FIGURES_PAUSE.guest:
      return md`sales and revenue are not shown to guests of the workspace; ask a member of your organization to watch it`;
    case FIGURES_PAUSE['guests-in-room']:
      return md`guests of the workspace are members of the channel, and its card shows sales and revenue; watch it in a channel without guests, or add \`--me\` to watch it for yourself`;
    case FIGURES_PAUSE.stranger:
      return md`sales and revenue are shown only to people of the organization`;
    case FIGURES_PAUSE['app-not-in']:
      return md`the channel is shared with another organization and I am no longer in it, so I cannot tell whether guests of the workspace read it; invite me back with \`/invite @eventops\` and set the watch again, or add \`--me\` to watch it for yourself`;
    case FIGURES_PAUSE['too-many']:
      return md`the channel is shared with another organization and has more members than I look up, so I cannot tell whether guests of the workspace read it; watch it in a smaller channel, or add \`--me\` to watch it for yourself`;
    default:
      return channelProblem(reason) ?? md`Slack refused posts there (${code(reason, 60)}).`;
  }
}
