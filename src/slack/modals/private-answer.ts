import type { RespondArguments, RespondFn, webApi } from '@slack/bolt';
import type { SlackMessage } from '../../render/block-kit.js';
import type { ModalOrigin } from './modal-openers.js';

/**
 * Answers after a modal closes, privately: an ephemeral message in the channel it came from, or a
 * direct message when it came from a global shortcut. Shaped like Bolt's `respond`.
 */
export function privateAnswer(client: webApi.WebClient, origin: ModalOrigin, userId: string): RespondFn {
  return (async (message: string | RespondArguments) => {
    const { text, blocks } =
      typeof message === 'string'
        ? { text: message, blocks: undefined }
        : (message as { text?: string; blocks?: SlackMessage['blocks'] });
    const body = { text: text ?? '', ...(blocks ? { blocks } : {}) };
    if (origin.channelId) return client.chat.postEphemeral({ channel: origin.channelId, user: userId, ...body });
    return client.chat.postMessage({ channel: userId, ...body });
  }) as RespondFn;
}
