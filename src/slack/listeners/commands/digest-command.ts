import type { RespondFn, webApi } from '@slack/bolt';
import type { DigestService } from '../../../digest/digest-service.js';
import { salesKey } from '../../../digest/subscription.js';
import { type SlackMessage, warningMessage } from '../../../render/block-kit.js';
import {
  digestNowMessage,
  digestOffMessage,
  digestStatusMessage,
  noDigestMessage,
} from '../../../render/digest-blocks.js';
import { joinMrkdwn, md } from '../../../render/mrkdwn.js';
import { channelChangeHeldMessage } from '../../../render/withheld-words.js';
import { turnDigestOn } from '../../adapters/digest-slack.js';
import { heldFromPerson } from '../../deps/figures-reader.js';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { respondPrivately } from '../../replies/respond-safely.js';
import { channelProblem } from '../../replies/slack-errors.js';
import { userMessageFor } from '../../replies/user-message.js';
import type { EventsCommand } from './command-parser.js';

export type DigestCommand = Extract<EventsCommand, { kind: `digest-${string}` }>;

export interface DigestRequest {
  respond: RespondFn;
  client: webApi.WebClient;
  channelId: string;
  userId: string;
}

/** Several answers as one message: their blocks one after another, their texts in a line. */
function together(messages: readonly SlackMessage[]): SlackMessage {
  return {
    text: joinMrkdwn(
      messages.map((message) => message.text),
      md` · `,
    ),
    blocks: messages.flatMap((message) => message.blocks ?? []),
  };
}

async function answer(deps: SlackDeps, digests: DigestService, command: DigestCommand, request: DigestRequest) {
  const personal = command.personal === true;
  const sales = command.sales === true;
  // A person's own digest is keyed by the person, wherever they ask for it; a sales digest beside the event digest.
  const conversation = personal ? request.userId : request.channelId;
  const key = sales ? salesKey(conversation) : conversation;
  // A channel's digests are changed by those who may set them (as thread-only): asked first.
  if (!personal && command.kind !== 'digest-status') {
    const held = await heldFromPerson(deps.audience, request.userId, deps.figuresPolicy);
    if (held) return channelChangeHeldMessage(held, 'digest');
  }
  switch (command.kind) {
    case 'digest-on':
      return turnDigestOn(deps, { ...request, personal }, command.options);
    case 'digest-off':
      return digestOffMessage(await digests.unsubscribe(key), personal, sales);
    case 'digest-status': {
      // Without --sales, the conversation's event digest and its sales digest side by side.
      const keys = sales ? [key] : [conversation, salesKey(conversation)];
      const found = (await Promise.all(keys.map((k) => digests.status(k)))).filter((f) => f !== undefined);
      if (found.length === 0) return noDigestMessage(personal, sales);
      return together(found.map((f) => digestStatusMessage({ ...f.subscription, nextAt: f.next.at })));
    }
    case 'digest-now': {
      const outcome = await digests.runNow(key);
      const problem = outcome.kind === 'channel-failing' ? channelProblem(outcome.reason) : undefined;
      return digestNowMessage(outcome, deps.clock.now(), problem, personal, sales);
    }
  }
}

/** `/events digest on|off|status|now [--me] [--sales]`: hands over to the digest feature, shows its answer privately. */
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
