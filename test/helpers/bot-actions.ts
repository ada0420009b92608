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
