import type { RespondFn, webApi } from '@slack/bolt';
import type { DigestService } from '../../digest/digest-service.js';
import { type SlackMessage, warningMessage } from '../../render/block-kit.js';
import {
  digestNowMessage,
  digestOffMessage,
  digestStatusMessage,
  noDigestMessage,
} from '../../render/digest-blocks.js';
import type { EventsCommand } from '../command-parser.js';
import type { SlackDeps } from '../deps.js';
import { turnDigestOn } from '../digest-slack.js';
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

async function answer(deps: SlackDeps, digests: DigestService, command: DigestCommand, request: DigestRequest) {
  const personal = command.personal === true;
  // A person's own digest is keyed by the person, wherever they ask for it.
  const key = personal ? request.userId : request.channelId;
  switch (command.kind) {
    case 'digest-on':
      return turnDigestOn(deps, { ...request, personal }, command.options);
    case 'digest-off':
      return digestOffMessage(await digests.unsubscribe(key), personal);
    case 'digest-status': {
      const found = await digests.status(key);
      return found ? digestStatusMessage({ ...found.subscription, nextAt: found.next.at }) : noDigestMessage(personal);
    }
    case 'digest-now': {
      const outcome = await digests.runNow(key);
      const problem = outcome.kind === 'channel-failing' ? channelProblem(outcome.reason) : undefined;
      return digestNowMessage(outcome, deps.clock.now(), problem, personal);
    }
  }
}

/** `/events digest on|off|status|now [--me]`: hands over to the digest feature, shows its answer privately. */
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
