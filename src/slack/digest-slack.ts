import type { webApi } from '@slack/bolt';
import type { DigestMetadata, DigestRunnerOptions } from '../digest/digest-runner.js';
import type { Metrics } from '../observability/metrics.js';
import type { SlackMessage } from '../render/block-kit.js';
import { channelRefusal, countSlackError } from './slack-errors.js';

/** How many recent messages are read to find out whether a digest went out before a crash. */
const HISTORY_SCAN = 200;

/** Posts a message; a failure is counted by Slack's error code and thrown on. */
export async function postCounted(
  client: webApi.WebClient,
  metrics: Metrics | undefined,
  args: { channel: string; text: string; blocks?: SlackMessage['blocks']; metadata?: DigestMetadata },
): Promise<void> {
  await client.chat.postMessage(args).catch((error: unknown) => {
    countSlackError(metrics, 'chat.postMessage', error);
    throw error;
  });
}

/** Whether a channel's recent history holds the digest this metadata names, posted at or after `sinceMs`. */
export async function digestPosted(
  client: webApi.WebClient,
  channel: string,
  metadata: DigestMetadata,
  sinceMs: number,
): Promise<boolean> {
  const history = await client.conversations.history({
    channel,
    oldest: String(Math.max(0, sinceMs) / 1000),
    include_all_metadata: true,
    limit: HISTORY_SCAN,
  });
  return (history.messages ?? []).some((message) => {
    const payload = message.metadata?.event_payload as Record<string, unknown> | undefined;
    return (
      message.metadata?.event_type === metadata.event_type &&
      payload?.subscription === metadata.event_payload.subscription &&
      payload?.date === metadata.event_payload.date
    );
  });
}

/** What the digest runner does in Slack: post, look for a post that may have gone out, tell a person. */
export type DigestSlack = Pick<DigestRunnerOptions<SlackMessage>, 'post' | 'findPosted' | 'notify' | 'channelRefusal'>;

/** The digest runner's Slack side, through the app's client (which exists once the app does). */
export function digestSlack(client: () => webApi.WebClient, metrics: Metrics | undefined): DigestSlack {
  return {
    post: (channel, message, metadata) =>
      postCounted(client(), metrics, { channel, text: message.text, blocks: message.blocks, metadata }),
    findPosted: (channel, metadata, sinceMs) => digestPosted(client(), channel, metadata, sinceMs),
    notify: (userId, message) =>
      postCounted(client(), metrics, { channel: userId, text: message.text, blocks: message.blocks }),
    channelRefusal,
  };
}
