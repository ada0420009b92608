import { expect } from 'vitest';
import type { SimPromo } from '../../src/simulator/seed.js';
import { type BotRig, SIGNING_SECRET } from './bot.js';
import type { SlackCall } from './fake-slack.js';
import {
  blockActionBody,
  commandBody,
  eventBody,
  postSigned,
  postSignedJson,
  viewSubmissionBody,
} from './slack-requests.js';

/** Sends `/events <text>` as `user` in `channel` (C0001), signed; answers its response_url. */
export async function command(r: BotRig, text: string, user = 'U0EDITOR', channel?: string) {
  const responseUrl = r.slack.responseUrl();
  const result = await postSigned(
    r.url,
    SIGNING_SECRET,
    commandBody({ text, user_id: user, response_url: responseUrl, ...(channel ? { channel_id: channel } : {}) }),
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

/** `user` picks an event in the open watch form (`block_actions` from the modal's picker), signed. */
export async function pickInWatchForm(r: BotRig, eventId: string, privateMetadata: string, user = 'U0ALICE') {
  const picked = {
    type: 'block_actions',
    team: { id: 'T0001', domain: 'test' },
    api_app_id: 'A0001',
    token: 'legacy-verification-token',
    user: { id: user, username: user.toLowerCase(), team_id: 'T0001' },
    trigger_id: '123.456.abc',
    container: { type: 'view', view_id: 'V0001' },
    view: {
      id: 'V0001',
      hash: '1.abc',
      type: 'modal',
      callback_id: 'watch_modal',
      private_metadata: privateMetadata,
      state: {
        values: { event: { event_picker: { type: 'external_select', selected_option: { value: eventId } } } },
      },
    },
    actions: [
      {
        type: 'external_select',
        action_id: 'event_picker',
        block_id: 'event',
        selected_option: { value: eventId, text: { type: 'plain_text', text: 'x' } },
        action_ts: '1.3',
      },
    ],
  };
  const body = `payload=${encodeURIComponent(JSON.stringify(picked))}`;
  expect((await postSigned(r.url, SIGNING_SECRET, body)).status).toBe(200);
}

/**
 * Submits the watch form opened in `channelId` with `eventId` picked and `conditions` typed, as
 * `userId` (U0EDITOR unless said), signed; what the bot answered at once (a field error, or nothing).
 */
export function submitWatchForm(
  r: BotRig,
  eventId: string,
  conditions: string,
  { channelId, userId }: { channelId: string; userId?: string },
) {
  return postSigned(
    r.url,
    SIGNING_SECRET,
    viewSubmissionBody({
      callbackId: 'watch_modal',
      privateMetadata: JSON.stringify({ channelId }),
      ...(userId ? { userId } : {}),
      values: {
        event: { event_picker: { type: 'external_select', selected_option: { value: eventId } } },
        watch_conditions: { watch_conditions: { type: 'plain_text_input', value: conditions } },
      },
    }),
  );
}

export function responsesTo(r: BotRig, responseUrl: string): SlackCall[] {
  const path = new URL(responseUrl).pathname;
  return r.slack.responses.filter((call) => call.method === path);
}

export function nthResponse(r: BotRig, responseUrl: string, n = 1) {
  return r.slack.waitFor(() => responsesTo(r, responseUrl)[n - 1]?.args);
}

/** What a command that needs an event's report says first, while it fetches it. */
export const FETCHING = ":hourglass_flowing_sand: Fetching the event's report";

/** The answer on a response_url after any "fetching the event's report" notice that came first. */
export function answerTo(r: BotRig, responseUrl: string) {
  return r.slack.waitFor(() =>
    responsesTo(r, responseUrl)
      .map((call) => call.args)
      .find((args) => !String(args.text).startsWith(FETCHING)),
  );
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

/** How many report calls the rig's simulator has answered. */
export const reportCalls = (r: BotRig) => r.sim.stats().log.filter((entry) => entry.path.endsWith('/report')).length;

/** A promo code of a published event (codes are unique within an event). */
export function publishedPromo(r: BotRig): SimPromo {
  const promo = r.sim.catalog.promos.find(
    (p) => r.sim.catalog.events.find((e) => e.id === p.eventId)?.status === 'published',
  );
  if (!promo) throw new Error('no promo');
  return promo;
}

/**
 * Sets a sold-out watch of a seed event straight through the watch service (no command, no
 * audience lookup): for tests about what happens to a watch once it exists. Personal when
 * `channel` is a person's id (`U…`); set by U0EDITOR unless said; ending an hour after it starts
 * unless the event says when.
 */
export async function watchDirectly(
  r: BotRig,
  channel: string,
  event: { id: string; name: string; startsAtMs: number; endsAtMs?: number },
  options: { sharedConfirmed?: boolean; userId?: string } = {},
): Promise<void> {
  await r.bot.watches.watch({
    channel,
    personal: channel.startsWith('U'),
    event: {
      id: event.id,
      name: event.name,
      startsAtMs: event.startsAtMs,
      endsAtMs: event.endsAtMs ?? event.startsAtMs + 3_600_000,
    },
    userId: options.userId ?? 'U0EDITOR',
    conditions: [{ kind: 'sold-out' }],
    sharedConfirmed: options.sharedConfirmed,
  });
}

/**
 * The home tab `user` was shown after call `since`: the last view published for them once the
 * bot's work is done. A view leaves out a read that is slow (a loaded machine) and a later one
 * shows it, so the first view published may not hold everything.
 */
export async function homeShown(r: BotRig, user: string, since: number): Promise<string> {
  const views = () =>
    r.slack.calls
      .slice(since)
      .filter((call) => call.method === 'views.publish' && call.args.user_id === user && call.error === undefined);
  await r.slack.waitFor(() => views()[0]);
  // Every listener's run is tracked work: none left means all views it will publish are out.
  await expect.poll(() => r.bot.work.running).toBe(0);
  return JSON.stringify(views().at(-1)?.args.view);
}

/** Opens `user`'s App Home, signed, and returns what it shows (see `homeShown`). */
export async function openHome(r: BotRig, user: string): Promise<string> {
  const since = r.slack.calls.length;
  const opened = await postSignedJson(
    r.url,
    SIGNING_SECRET,
    eventBody({ type: 'app_home_opened', user, channel: 'D0001', tab: 'home', event_ts: '5.1' }),
  );
  expect(opened.status).toBe(200);
  return homeShown(r, user, since);
}
