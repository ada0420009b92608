import type { webApi } from '@slack/bolt';
import type { DigestRunnerOptions } from '../../digest/digest-runner.js';
import type { DigestService } from '../../digest/digest-service.js';
import type { DigestOnOptions, Subscription } from '../../digest/subscription.js';
import { type Logger, silentLogger } from '../../logger.js';
import type { Metrics } from '../../observability/metrics.js';
import { type SlackMessage, warningMessage } from '../../render/block-kit.js';
import { digestAnnouncement, digestOnMessage, personalDigestAnnouncement } from '../../render/digest-blocks.js';
import { code, type Mrkdwn, md } from '../../render/mrkdwn.js';
import { personZone } from '../deps/person-zone.js';
import { dmConversations, findPosted, postCounted } from '../replies/posted-messages.js';
import { channelRefusal, personRefusal, slackErrorCode } from '../replies/slack-errors.js';
import { userMessageFor } from '../replies/user-message.js';

/** What the digest runner does in Slack: post, look for a post that may have gone out, tell a person. */
export type DigestSlack = Pick<DigestRunnerOptions<SlackMessage>, 'post' | 'findPosted' | 'notify' | 'channelRefusal'>;

/** The digest runner's Slack side, through the app's client (which exists once the app does). */
export function digestSlack(
  client: () => webApi.WebClient,
  metrics: Metrics | undefined,
  logger: Logger = silentLogger,
): DigestSlack {
  const conversation = dmConversations(client, metrics);
  return {
    post: async (channel, message, metadata) => {
      await postCounted(client(), metrics, { channel, message, metadata }, { logger, kind: 'digest' });
    },
    // A personal digest's channel is the person's id: its history is their DM's.
    findPosted: async (channel, metadata, sinceMs, personal) =>
      (await findPosted(client(), personal ? await conversation(channel) : channel, metadata, sinceMs)) !== undefined,
    notify: async (userId, message) => {
      await postCounted(client(), metrics, { channel: userId, message });
    },
    channelRefusal: (error, personal) => (personal ? personRefusal(error) : channelRefusal(error)),
  };
}

/**
 * Posts what turns a digest on, before it is saved: the announcement in its channel, or for a
 * personal digest the DM that shows the person where it will arrive. Throws when Slack refuses.
 */
export async function announceDigest(
  client: webApi.WebClient,
  metrics: Metrics | undefined,
  subscription: Subscription,
): Promise<void> {
  const message = subscription.personal ? personalDigestAnnouncement(subscription) : digestAnnouncement(subscription);
  await postCounted(client, metrics, { channel: subscription.channelId, message });
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
