import { randomUUID } from 'node:crypto';
import { afterEach, expect } from 'vitest';
import type { SimEvent, SimPromo } from '../../src/simulator/seed.js';
import { type BotRig, SIGNING_SECRET, startBot } from '../helpers/bot.js';
import { answerTo, type Json, responsesTo, command as send } from '../helpers/bot-actions.js';
import { type AheadClock, aheadClock } from '../helpers/clocks.js';
import type { SlackCall } from '../helpers/fake-slack.js';
import { eventBody, functionExecutedBody, postSignedJson } from '../helpers/slack-requests.js';

/** What the figures-gate tests share: the bot on one clock, and ways to read what it sent. */

/** A Slack Connect channel's `conversations.info`: shared with a partner company. */
export const SHARED_INFO = { is_shared: true, is_ext_shared: true };
/** A multi-channel guest of the workspace. */
export const GUEST = 'U0GUEST';
/** What a report, card, alert or summary prints when it prints figures. */
const FIGURES = /Tickets sold|Gross revenue/;
export const figuresIn = (value: unknown) => FIGURES.test(JSON.stringify(value ?? null));

/** The bot and the simulator on one clock the test moves ahead. */
export async function onOneClock(env: Record<string, string> = {}): Promise<{ r: BotRig; clock: AheadClock }> {
  const clock = aheadClock();
  const r = await startBot({
    compose: { clock },
    sim: { clock, reportLimit: { limit: 3, windowMs: 1_000 } },
    env: { TICKETING_REPORT_LIMIT: '3/1s', WATCH_MIN_INTERVAL: '1s', ...env },
  });
  return { r, clock };
}

/**
 * Starts `onOneClock` for a test of the calling file and closes it after that test: call it at the
 * file's top level (it registers the `afterEach`).
 */
export function useBotOnOneClock(): (env?: Record<string, string>) => Promise<{ r: BotRig; clock: AheadClock }> {
  let rig: BotRig | undefined;
  afterEach(async () => {
    await rig?.close();
    rig = undefined;
  });
  return async (env = {}) => {
    const both = await onOneClock(env);
    rig = both.r;
    return both;
  };
}

/** Runs scheduler turns (moving the clock a second each) until `done` holds. */
export async function turnsUntil(r: BotRig, clock: AheadClock, done: () => Promise<boolean>, what: string) {
  for (let i = 0; i < 40; i += 1) {
    if (await done()) return;
    await r.bot.watches.turn();
    clock.advance(1_000);
  }
  throw new Error(`no turn brought ${what}`);
}

/** An upcoming published event (a day away at least); the `n`th such. */
export function upcoming(r: BotRig, n = 0): SimEvent {
  const events = r.sim.catalog.events.filter(
    (each) => each.status === 'published' && each.startsAtMs > Date.now() + 86_400_000,
  );
  const event = events[n];
  if (!event) throw new Error('the seed has upcoming published events');
  return event;
}

/** An upcoming published event with a promo code. */
export function withPromo(r: BotRig): { event: SimEvent; promo: SimPromo } {
  for (const event of r.sim.catalog.events) {
    if (event.status !== 'published' || event.startsAtMs < Date.now() + 86_400_000) continue;
    const promo = r.sim.catalog.promos.find((p) => p.eventId === event.id && p.quantity >= 10 && p.redeemed > 0);
    if (promo) return { event, promo };
  }
  throw new Error('no event with a redeemed promo code in the seed');
}

export const posts = (r: BotRig, channel: string) =>
  r.slack.calls.filter((call) => call.method === 'chat.postMessage' && call.args.channel === channel);
export const updates = (r: BotRig, channel: string) =>
  r.slack.calls.filter((call) => call.method === 'chat.update' && call.args.channel === channel);
/** Everything the bot sent into `channel` for all its readers (posts and edits). */
export const sentTo = (r: BotRig, channel: string) => [...posts(r, channel), ...updates(r, channel)];

/** The buttons of a message, by action id. */
export function buttons(message: Json): Map<string, Json> {
  const found = new Map<string, Json>();
  for (const block of (message.blocks ?? []) as Json[])
    for (const element of (block.elements ?? []) as Json[])
      if (element.type === 'button') found.set(String(element.action_id), element);
  return found;
}

/** The watch card a channel got, once posted. */
export function cardIn(r: BotRig, channel: string): Promise<SlackCall> {
  return r.slack.waitFor(() =>
    posts(r, channel).find(
      (call) =>
        call.args.thread_ts === undefined && JSON.stringify(call.args.metadata ?? '').includes('eventops_watch'),
    ),
  );
}

/** The `ts` chat.postMessage gave a post. */
export const tsOf = (r: BotRig, post: SlackCall) =>
  r.slack.postedTs[r.slack.calls.filter((c) => c.method === 'chat.postMessage').indexOf(post)] as string;

/** The card as it stands now: its last edit, or the post itself. */
export function cardNow(r: BotRig, channel: string, card: SlackCall): Json {
  const ts = tsOf(r, card);
  return (
    updates(r, channel)
      .filter((call) => call.args.ts === ts)
      .at(-1)?.args ?? card.args
  );
}

/** `/events <text>` as `user` in `channel`, signed; its response_url. */
export const command = async (r: BotRig, text: string, channel: string, user = 'U0EDITOR') =>
  (await send(r, text, user, channel)).responseUrl;

/** Everything said on a response_url, as one string. */
export const saidOn = (r: BotRig, responseUrl: string) =>
  JSON.stringify(responsesTo(r, responseUrl).map((c) => c.args));

/** A signed Events API callback. */
export async function slackEvent(r: BotRig, event: Record<string, unknown>) {
  const answer = await postSignedJson(r.url, SIGNING_SECRET, eventBody(event));
  expect(answer.status).toBe(200);
}

/** A watch's stored state in `channel` (the first). */
export const watchIn = async (r: BotRig, channel: string) => (await r.bot.watches.list({ channel }))[0]?.watch;

/** Sets a channel watch by command and waits for its card to show the first check's figures. */
export async function watchedWithFigures(r: BotRig, channel: string, event: SimEvent, conditions = 'sold out') {
  const asked = await command(r, `watch ${event.id}: ${conditions}`, channel);
  const card = await cardIn(r, channel);
  await answerTo(r, asked);
  await r.slack.waitFor(() => figuresIn(cardNow(r, channel, card).blocks));
  return card;
}

/**
 * A signed Events API callback, once the bot's listener has done with it: the bot's tracked work
 * is back to what it was before (Bolt acknowledges an event before its listener runs, and tracks
 * that listener before the acknowledgement can be read here).
 */
export async function heard(r: BotRig, event: Record<string, unknown>) {
  const before = r.bot.work.running;
  await slackEvent(r, event);
  await r.slack.waitFor(() => r.bot.work.running <= before || undefined);
}

/** Runs "Set promo quantity" as Slack would (function_executed), signed; how it completed. */
export async function setPromoStep(r: BotRig, inputs: Record<string, unknown>): Promise<SlackCall> {
  const executionId = `Fx${randomUUID().slice(0, 10)}`;
  const token = ['xwfp', '-', 'fake-', 'workflow-token'].join('');
  const body = functionExecutedBody('set_promo_quantity', inputs, executionId, token);
  expect((await postSignedJson(r.url, SIGNING_SECRET, body)).status).toBe(200);
  return r.slack.waitFor(
    () =>
      r.slack.calls.find(
        (call) => call.method.startsWith('functions.complete') && call.args.function_execution_id === executionId,
      ),
    20_000,
  );
}
