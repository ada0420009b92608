import type { RespondFn, webApi } from '@slack/bolt';
import type { DigestService } from '../../digest/digest-service.js';
import { type DigestOnOptions, newSubscription } from '../../digest/subscription.js';
import { type SlackMessage, warningMessage } from '../../render/block-kit.js';
import {
  digestAnnouncement,
  digestNowMessage,
  digestOffMessage,
  digestOnMessage,
  digestStatusMessage,
  noDigestMessage,
} from '../../render/digest-blocks.js';
import { md } from '../../render/mrkdwn.js';
import type { EventsCommand } from '../command-parser.js';
import type { SlackDeps } from '../deps.js';
import { personZone } from '../person-zone.js';
import { respondPrivately } from '../respond-safely.js';
import { channelProblem } from '../slack-errors.js';
import { userMessageFor } from '../user-message.js';

export type DigestCommand = Extract<EventsCommand, { kind: `digest-${string}` }>;

export interface DigestRequest {
  respond: RespondFn;
  client: webApi.WebClient;
  channelId: string;
  userId: string;
}

/** `on`: the announcement goes first, proving the bot may post here before anything is saved. */
async function turnOn(deps: SlackDeps, request: DigestRequest, options: DigestOnOptions): Promise<SlackMessage> {
  const { subscription, zoneSource } = newSubscription(options, {
    channelId: request.channelId,
    userId: request.userId,
    personZone: options.timezone ? undefined : await personZone(request.client, request.userId),
    now: deps.clock.now(),
  });
  const announcement = digestAnnouncement(subscription);
  try {
    await request.client.chat.postMessage({ channel: request.channelId, ...announcement });
  } catch (error) {
    return warningMessage(md`${userMessageFor(error)} The digest was not set up.`);
  }
  const next = await deps.digests.subscribe(subscription);
  return digestOnMessage(subscription, next.date, zoneSource);
}

async function answer(deps: SlackDeps, digests: DigestService, command: DigestCommand, request: DigestRequest) {
  switch (command.kind) {
    case 'digest-on':
      return turnOn(deps, request, command.options);
    case 'digest-off':
      return digestOffMessage(await digests.unsubscribe(request.channelId));
    case 'digest-status': {
      const found = await digests.status(request.channelId);
      return found ? digestStatusMessage({ ...found.subscription, nextAt: found.next.at }) : noDigestMessage();
    }
    case 'digest-now': {
      const outcome = await digests.runNow(request.channelId);
      const problem = outcome.kind === 'channel-failing' ? channelProblem(outcome.reason) : undefined;
      return digestNowMessage(outcome, deps.clock.now(), problem);
    }
  }
}

/** `/events digest on|off|status|now`: hands over to the digest feature, shows its answer privately. */
export async function handleDigestCommand(deps: SlackDeps, command: DigestCommand, request: DigestRequest) {
  const log = deps.logger.child({ command: command.kind, channel: request.channelId, user: request.userId });
  let message: SlackMessage;
  try {
    message = await answer(deps, deps.digests, command, request);
  } catch (error) {
    log.error('A digest command failed', { error });
    message = warningMessage(userMessageFor(error));
  }
  await respondPrivately(request.respond, message, log);
}
