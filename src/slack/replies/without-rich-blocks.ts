import type { Logger } from '../../logger.js';
import { type Block, context, LIMITS, type SlackMessage } from '../../render/block-kit.js';
import { md } from '../../render/mrkdwn.js';
import { slackErrorCode } from './slack-errors.js';

/** The newer blocks Slack may refuse where it does not show them yet (a workspace, a client). */
const RICH = new Set(['data_visualization', 'table', 'data_table']);

/** Slack's answers that mean it refused the blocks themselves. */
const BLOCK_ERRORS = new Set(['invalid_blocks', 'invalid_blocks_format', 'invalid_attachments']);

export const isBlockError = (error: unknown): boolean => BLOCK_ERRORS.has(slackErrorCode(error) ?? '');

/** The message without its charts and tables, saying so; undefined when it has none to leave out. */
export function withoutRichBlocks(message: SlackMessage): SlackMessage | undefined {
  const kept = message.blocks.filter((block) => !RICH.has((block as { type: string }).type));
  if (kept.length === message.blocks.length) return undefined;
  const note: Block = context(
    md`:information_source: The chart and table could not be shown here: Slack refused them.`,
  );
  return { text: message.text, blocks: [...kept, note].slice(0, LIMITS.messageBlocks) };
}

/** The kinds of message this process has already said this of. */
const warned = new Set<string>();

/**
 * Sends `message`; if Slack refuses its blocks and it has charts or tables, sends it again
 * without them (saying so), so a report, card or digest is never lost to a chart. Logged once per
 * kind of message a process.
 */
export async function sendWithoutRichBlocksIfRefused<T>(
  message: SlackMessage,
  send: (message: SlackMessage) => Promise<T>,
  logger: Logger,
  kind: string,
): Promise<T> {
  try {
    return await send(message);
  } catch (error) {
    const plain = isBlockError(error) ? withoutRichBlocks(message) : undefined;
    if (!plain) throw error;
    if (!warned.has(kind)) {
      warned.add(kind);
      logger.warn('Slack refused a chart or table: sent without them', { kind, slackError: slackErrorCode(error) });
    }
    return send(plain);
  }
}
