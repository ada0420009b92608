import type { RespondArguments, RespondFn } from '@slack/bolt';
import type { Logger } from '../../logger.js';
import type { SlackMessage } from '../../render/block-kit.js';

/** A private (ephemeral) answer through `respond()`; a failure to deliver is logged, not thrown. */
export async function respondPrivately(
  respond: RespondFn,
  message: SlackMessage,
  logger: Logger,
  extra: Partial<RespondArguments> = {},
): Promise<boolean> {
  try {
    await respond({
      response_type: 'ephemeral',
      text: message.text,
      blocks: message.blocks,
      ...extra,
    } as RespondArguments);
    return true;
  } catch (error) {
    logger.warn('Could not answer through response_url', { error });
    return false;
  }
}
