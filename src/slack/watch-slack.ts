import type { webApi } from '@slack/bolt';
import type { Metrics } from '../observability/metrics.js';
import type { SlackMessage } from '../render/block-kit.js';
import { code, md } from '../render/mrkdwn.js';
import {
  watchAlertMessage,
  watchCardMessage,
  watchPausedMessage,
  watchSummaryMessage,
} from '../render/watch-blocks.js';
import type { WatchChat, WatchMessages, WatchMetadata } from '../watches/watch-service.js';
import { openDm, postCounted } from './digest-slack.js';
import { channelProblem, channelRefusal, countSlackError } from './slack-errors.js';

/** How many recent messages are read to find a card that may have gone out before a crash. */
const HISTORY_SCAN = 200;

const counted =
  (metrics: Metrics | undefined, call: string) =>
  (error: unknown): never => {
    countSlackError(metrics, call, error);
    throw error;
  };

type Message = NonNullable<webApi.ConversationsHistoryResponse['messages']>[number];

function carries(message: Message, metadata: WatchMetadata): boolean {
  const payload = message.metadata?.event_payload as Record<string, unknown> | undefined;
  const wanted = metadata.event_payload;
  return (
    message.metadata?.event_type === metadata.event_type &&
    payload?.watch === wanted.watch &&
    payload?.created === wanted.created &&
    payload?.kind === wanted.kind &&
    (wanted.condition === undefined || payload?.condition === wanted.condition) &&
    (wanted.crossing === undefined || payload?.crossing === wanted.crossing)
  );
}

/** The watches' Slack side, through the app's client (which exists once the app does). */
export function watchSlack(client: () => webApi.WebClient, metrics: Metrics | undefined): WatchChat<SlackMessage> {
  // A personal watch lives in the person's DM: posts may name the user id, but edits, thread
  // replies and history need the DM's own id (D...), opened once a person and process.
  const dms = new Map<string, string>();
  const conversation = async (channel: string) => {
    if (!/^[UW][A-Z0-9]+$/.test(channel)) return channel;
    const known = dms.get(channel);
    if (known) return known;
    const id = await openDm(client(), metrics, channel);
    dms.set(channel, id);
    return id;
  };
  return {
    async postCard(channel, message, metadata) {
      const posted = await client()
        .chat.postMessage({ channel, text: message.text, blocks: message.blocks, metadata })
        .catch(counted(metrics, 'chat.postMessage'));
      if (!posted.ts) throw new Error('Slack posted the card without a message id');
      return posted.ts;
    },
    async updateCard(channel, ts, message) {
      await client()
        .chat.update({ channel: await conversation(channel), ts, text: message.text, blocks: message.blocks })
        .catch(counted(metrics, 'chat.update'));
    },
    async reply(channel, threadTs, message, options) {
      await client()
        .chat.postMessage({
          channel: await conversation(channel),
          thread_ts: threadTs,
          reply_broadcast: options.broadcast,
          text: message.text,
          blocks: message.blocks,
          metadata: options.metadata,
        })
        .catch(counted(metrics, 'chat.postMessage'));
    },
    async findCard(channel, metadata, sinceMs) {
      const history = await client().conversations.history({
        channel: await conversation(channel),
        oldest: String(Math.max(0, sinceMs - 1_000) / 1000),
        include_all_metadata: true,
        limit: HISTORY_SCAN,
      });
      return (history.messages ?? []).find((message) => carries(message, metadata))?.ts;
    },
    async findReply(channel, threadTs, metadata) {
      let cursor: string | undefined;
      do {
        const page = await client().conversations.replies({
          channel: await conversation(channel),
          ts: threadTs,
          include_all_metadata: true,
          limit: HISTORY_SCAN,
          ...(cursor ? { cursor } : {}),
        });
        if ((page.messages ?? []).some((message) => carries(message as Message, metadata))) return true;
        cursor = page.response_metadata?.next_cursor || undefined;
      } while (cursor);
      return false;
    },
    notify: (userId, message) =>
      postCounted(client(), metrics, { channel: userId, text: message.text, blocks: message.blocks }),
    channelRefusal,
  };
}

/** The watch messages, rendered once; a refusal code becomes the sentence the person reads. */
export const watchMessages: WatchMessages<SlackMessage> = {
  card: (input) => watchCardMessage(input),
  alert: (input) => watchAlertMessage(input),
  summary: (input) => watchSummaryMessage(input),
  paused: (watch, reason) =>
    watchPausedMessage(watch, channelProblem(reason) ?? md`Slack refused posts there (${code(reason, 60)}).`),
};
