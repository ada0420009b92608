import type { types } from '@slack/bolt';
import { type Mrkdwn, md, shorten } from './mrkdwn.js';

/** Block Kit limits (https://docs.slack.dev/reference/block-kit). */
export const LIMITS = {
  messageBlocks: 50,
  surfaceBlocks: 100,
  sectionText: 3000,
  fields: 10,
  fieldText: 2000,
  headerText: 150,
  contextElements: 10,
  buttonText: 75,
  buttonValue: 2000,
  fallbackText: 4000,
} as const;

export type Block = types.KnownBlock;

/**
 * What a render function returns for a message: blocks plus the fallback `text` every message
 * needs. Both are `Mrkdwn`: the fallback shows in notifications, where `<!channel>` would ping.
 */
export interface SlackMessage {
  text: Mrkdwn;
  blocks: Block[];
}

export const mrkdwnSection = (text: Mrkdwn): Block => ({
  type: 'section',
  text: { type: 'mrkdwn', text: shorten(text, LIMITS.sectionText) },
});

export const mrkdwnField = (text: Mrkdwn) => ({ type: 'mrkdwn' as const, text: shorten(text, LIMITS.fieldText) });

export const context = (...texts: Mrkdwn[]): Block => ({
  type: 'context',
  elements: texts.slice(0, LIMITS.contextElements).map((text) => ({ type: 'mrkdwn' as const, text })),
});

export const divider = (): Block => ({ type: 'divider' });

/** A header: plain text, but escaped all the same (Slack decodes the three entities there too). */
export const header = (text: Mrkdwn): Block => ({
  type: 'header',
  text: { type: 'plain_text', text: shorten(text, LIMITS.headerText) },
});

/** A message of one section, its fallback the same text. */
export function plainMessage(text: Mrkdwn): SlackMessage {
  return { text: shorten(text, LIMITS.fallbackText), blocks: [mrkdwnSection(text)] };
}

/** The one way a warning reads: `:warning:` and the sentence (in a section, a context or a line). */
export function warning(text: Mrkdwn): Mrkdwn {
  return md`:warning: ${text}`;
}

/** An error or refusal as a message of one section. */
export function warningMessage(text: Mrkdwn): SlackMessage {
  return plainMessage(warning(text));
}

/**
 * Keeps a list of blocks under `max`, replacing what does not fit with one "...and N more" line
 * built by `describeRest` from the number of blocks left out.
 */
export function capBlocks(blocks: Block[], max: number, describeRest: (droppedBlocks: number) => Mrkdwn): Block[] {
  if (blocks.length <= max) return blocks;
  const kept = blocks.slice(0, max - 1);
  return [...kept, context(describeRest(blocks.length - kept.length))];
}
