import type { types } from '@slack/bolt';

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

/** What a render function returns for a message: blocks plus the fallback `text` every message needs. */
export interface SlackMessage {
  text: string;
  blocks: Block[];
}

export const mrkdwnSection = (text: string): Block => ({
  type: 'section',
  text: { type: 'mrkdwn', text: text.length > LIMITS.sectionText ? `${text.slice(0, LIMITS.sectionText - 1)}…` : text },
});

export const context = (...texts: string[]): Block => ({
  type: 'context',
  elements: texts.slice(0, LIMITS.contextElements).map((text) => ({ type: 'mrkdwn' as const, text })),
});

export const divider = (): Block => ({ type: 'divider' });

/** A header; `text` must already be escaped where it comes from the API (see `safeText`). */
export const header = (text: string): Block => ({
  type: 'header',
  text: {
    type: 'plain_text',
    text: text.length > LIMITS.headerText ? `${text.slice(0, LIMITS.headerText - 1)}…` : text,
  },
});

/**
 * Keeps a list of blocks under `max`, replacing what does not fit with one "...and N more" line.
 * `unit` names what was left out; `count` is how many items the dropped blocks stood for.
 */
export function capBlocks(blocks: Block[], max: number, describeRest: (droppedBlocks: number) => string): Block[] {
  if (blocks.length <= max) return blocks;
  const kept = blocks.slice(0, max - 1);
  return [...kept, context(describeRest(blocks.length - kept.length))];
}
