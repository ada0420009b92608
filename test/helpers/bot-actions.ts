import { expect } from 'vitest';
import { type BotRig, SIGNING_SECRET } from './bot.js';
import type { SlackCall } from './fake-slack.js';
import { blockActionBody, commandBody, postSigned } from './slack-requests.js';

/** Sends `/events <text>` as `user`, signed; answers its response_url. */
export async function command(r: BotRig, text: string, user = 'U0EDITOR') {
  const responseUrl = r.slack.responseUrl();
  const result = await postSigned(
    r.url,
    SIGNING_SECRET,
    commandBody({ text, user_id: user, response_url: responseUrl }),
  );
  expect(result.status).toBe(200);
  return { ...result, responseUrl };
}

/** Clicks a button carrying `value`, as `user`, signed. */
export async function click(
  r: BotRig,
  actionId: string,
  value: string,
  user = 'U0EDITOR',
  on: { channelId?: string; messageTs?: string } = {},
) {
  const responseUrl = r.slack.responseUrl();
  const result = await postSigned(
    r.url,
    SIGNING_SECRET,
    blockActionBody({ actionId, value, userId: user, responseUrl, ...on }),
  );
  expect(result.status).toBe(200);
  return { ...result, responseUrl };
}

export function responsesTo(r: BotRig, responseUrl: string): SlackCall[] {
  const path = new URL(responseUrl).pathname;
  return r.slack.responses.filter((call) => call.method === path);
}

export function nthResponse(r: BotRig, responseUrl: string, n = 1) {
  return r.slack.waitFor(() => responsesTo(r, responseUrl)[n - 1]?.args);
}

export type Json = Record<string, unknown>;
export const blocksText = (message: Json) => JSON.stringify(message.blocks ?? []);

export function buttonValue(message: Json, actionId: string): string {
  for (const block of (message.blocks ?? []) as Json[]) {
    for (const element of (block.elements ?? []) as Json[])
      if (element.action_id === actionId) return String(element.value);
  }
  throw new Error(`no ${actionId} button`);
}

/**
 * Sets a sold-out watch of a seed event straight through the watch service (no command, no
 * audience lookup): for tests about what happens to a watch once it exists. Personal when
 * `channel` is a person's id (`U…`).
 */
export async function watchDirectly(
  r: BotRig,
  channel: string,
  event: { id: string; name: string; startsAtMs: number },
  options: { sharedConfirmed?: boolean } = {},
): Promise<void> {
  await r.bot.watches.watch({
    channel,
    personal: channel.startsWith('U'),
    event: { id: event.id, name: event.name, startsAtMs: event.startsAtMs, endsAtMs: event.startsAtMs + 3_600_000 },
    userId: 'U0EDITOR',
    conditions: [{ kind: 'sold-out' }],
    sharedConfirmed: options.sharedConfirmed,
  });
}
