import type { webApi } from '@slack/bolt';
import type { DigestMetadata, DigestRunnerOptions } from '../digest/digest-runner.js';
import type { DigestService } from '../digest/digest-service.js';
import type { DigestOnOptions, Subscription } from '../digest/subscription.js';
import type { Metrics } from '../observability/metrics.js';
import { type SlackMessage, warningMessage } from '../render/block-kit.js';
import { digestAnnouncement, digestOnMessage, personalDigestAnnouncement } from '../render/digest-blocks.js';
import { code, type Mrkdwn, md } from '../render/mrkdwn.js';
import { personZone } from './person-zone.js';
import { channelRefusal, countSlackError, personRefusal, slackErrorCode } from './slack-errors.js';
import { userMessageFor } from './user-message.js';

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

/**
 * The id of the person's DM with the bot (`D...`): a post may name the user id, but
 * `conversations.history` needs the conversation's own id. `conversations.open` returns the
 * existing DM (scope `im:write`); a person who left gets `user_not_found` or `user_disabled`.
 */
export async function openDm(client: webApi.WebClient, metrics: Metrics | undefined, userId: string): Promise<string> {
  const opened = await client.conversations.open({ users: userId }).catch((error: unknown) => {
    countSlackError(metrics, 'conversations.open', error);
    throw error;
  });
  const id = opened.channel?.id;
  if (!id) throw new Error('Slack opened the DM without naming it');
  return id;
}

/** What the digest runner does in Slack: post, look for a post that may have gone out, tell a person. */
export type DigestSlack = Pick<DigestRunnerOptions<SlackMessage>, 'post' | 'findPosted' | 'notify' | 'channelRefusal'>;

/** The digest runner's Slack side, through the app's client (which exists once the app does). */
export function digestSlack(client: () => webApi.WebClient, metrics: Metrics | undefined): DigestSlack {
  // A DM's id never changes: opened once a person and process.
  const dms = new Map<string, string>();
  return {
    post: (channel, message, metadata) =>
      postCounted(client(), metrics, { channel, text: message.text, blocks: message.blocks, metadata }),
    findPosted: async (channel, metadata, sinceMs, personal) => {
      let conversation = channel;
      if (personal) {
        conversation = dms.get(channel) ?? (await openDm(client(), metrics, channel));
        dms.set(channel, conversation);
      }
      return digestPosted(client(), conversation, metadata, sinceMs);
    },
    notify: (userId, message) =>
      postCounted(client(), metrics, { channel: userId, text: message.text, blocks: message.blocks }),
    channelRefusal: (error, personal) => (personal ? personRefusal(error) : channelRefusal(error)),
  };
}

/**
 * Posts what turns a digest on, before it is saved: the announcement in its channel, or for a
 * personal digest the DM that shows the person where it will arrive. Throws when Slack refuses.
 */
export function announceDigest(
  client: webApi.WebClient,
  metrics: Metrics | undefined,
  subscription: Subscription,
): Promise<void> {
  const message = subscription.personal ? personalDigestAnnouncement(subscription) : digestAnnouncement(subscription);
  return postCounted(client, metrics, { channel: subscription.channelId, text: message.text, blocks: message.blocks });
}

/**
 * Turns a digest on from Slack (the command, App Home's button): the default zone is the person's
 * Slack zone; the announcement (or the DM) goes first, and when Slack refuses it nothing is saved.
 */
export function turnDigestOnInSlack(
  deps: { digests: DigestService; metrics?: Metrics | undefined },
  request: { client: webApi.WebClient; channelId: string; userId: string; personal: boolean },
  options: DigestOnOptions,
): ReturnType<DigestService['turnOn']> {
  return deps.digests.turnOn({
    options,
    channelId: request.channelId,
    userId: request.userId,
    personal: request.personal,
    personZone: () => personZone(request.client, request.userId),
    announce: (subscription) => announceDigest(request.client, deps.metrics, subscription),
  });
}

/** Why a digest was not turned on, when Slack refused its announcement (or the DM). */
export function digestRefusedWords(error: unknown, personal: boolean): Mrkdwn {
  const slackCode = slackErrorCode(error);
  if (personal && slackCode !== undefined)
    return md`I could not send you a DM (${code(slackCode, 40)}), so your digest was not set up.`;
  return md`${userMessageFor(error)} The digest was not set up.`;
}

/** `/events digest on [--me]`: turns it on and says how that went. */
export async function turnDigestOn(
  deps: { digests: DigestService; metrics?: Metrics | undefined },
  request: { client: webApi.WebClient; channelId: string; userId: string; personal: boolean },
  options: DigestOnOptions,
): Promise<SlackMessage> {
  const result = await turnDigestOnInSlack(deps, request, options);
  return result.kind === 'on'
    ? digestOnMessage(result.subscription, result.next.date, result.zoneSource)
    : warningMessage(digestRefusedWords(result.error, request.personal));
}
