import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { PROMO_CONFIRM_ACTION } from '../../src/render/promo-blocks.js';
import type { SimEvent, SimPromo } from '../../src/simulator/seed.js';
import { type BotRig, SIGNING_SECRET, startBot } from '../helpers/bot.js';
import {
  answerTo,
  buttonValue,
  click,
  type Json,
  nthResponse,
  responsesTo,
  command as send,
  watchDirectly,
} from '../helpers/bot-actions.js';
import { type AheadClock, aheadClock } from '../helpers/clocks.js';
import type { SlackCall } from '../helpers/fake-slack.js';
import { eventBody, functionExecutedBody, postSignedJson } from '../helpers/slack-requests.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * One gate for figures (issue 33): every path that sends sales, revenue or promo quantities asks
 * the figures rule who will read them. Each test drives one path on the real Bolt app (signed
 * requests, the fake Slack and the simulator on loopback) and checks that no figure reaches a
 * conversation or person the rule forbids, and that whoever asked is told privately why.
 */

let rig: BotRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** A Slack Connect channel: shared with a partner company. */
const SHARED = 'C0PARTNER';
const SHARED_INFO = { is_shared: true, is_ext_shared: true };
/** A multi-channel guest of the workspace. */
const GUEST = 'U0GUEST';
/** The guest's DM with the bot, as the fake Slack names it. */
const GUEST_DM = 'D0GUEST';
const PAGE = 'https://tickets.example.com/e/{id}';
/** What a report, card, alert or summary prints when it prints figures. */
const FIGURES = /Tickets sold|Gross revenue/;
const figuresIn = (value: unknown) => FIGURES.test(JSON.stringify(value ?? null));

/** The bot and the simulator on one clock the test moves ahead (checks, expiring answers, the event's end). */
async function onOneClock(env: Record<string, string> = {}): Promise<{ r: BotRig; clock: AheadClock }> {
  const clock = aheadClock();
  const r = await startBot({
    compose: { clock },
    sim: { clock, reportLimit: { limit: 3, windowMs: 1_000 } },
    env: {
      TICKETING_REPORT_LIMIT: '3/1s',
      WATCH_MIN_INTERVAL: '1s',
      EVENT_PAGE_URL: PAGE,
      UNFURL_STYLE: 'classic',
      ...env,
    },
  });
  rig = r;
  return { r, clock };
}

/** Runs scheduler turns until one checks an event (or holds its check), moving the clock to the next one due. */
async function turnsUntilChecked(r: BotRig, clock: AheadClock, until: 'checked' | 'held' = 'checked') {
  for (let i = 0; i < 40; i += 1) {
    const turn = await r.bot.watches.turn();
    if (turn.kind === until) return turn;
    clock.advance(turn.kind === 'idle' && turn.nextAt !== undefined ? Math.max(0, turn.nextAt - clock.now()) : 1_000);
  }
  throw new Error('no check came');
}

/** Runs scheduler turns (moving the clock a second each) until `done` holds. */
async function turnsUntil(r: BotRig, clock: AheadClock, done: () => Promise<boolean>, what: string) {
  for (let i = 0; i < 40; i += 1) {
    if (await done()) return;
    await r.bot.watches.turn();
    clock.advance(1_000);
  }
  throw new Error(`no turn brought ${what}`);
}

/** An upcoming published event (a day away at least); the `n`th such. */
function upcoming(r: BotRig, n = 0): SimEvent {
  const events = r.sim.catalog.events.filter(
    (each) => each.status === 'published' && each.startsAtMs > Date.now() + 86_400_000,
  );
  const event = events[n];
  if (!event) throw new Error('the seed has upcoming published events');
  return event;
}

/** An upcoming published event with a promo code. */
function withPromo(r: BotRig): { event: SimEvent; promo: SimPromo } {
  for (const event of r.sim.catalog.events) {
    if (event.status !== 'published' || event.startsAtMs < Date.now() + 86_400_000) continue;
    const promo = r.sim.catalog.promos.find((p) => p.eventId === event.id && p.quantity >= 10);
    if (promo) return { event, promo };
  }
  throw new Error('no event with a promo code in the seed');
}

const posts = (r: BotRig, channel: string) =>
  r.slack.calls.filter((call) => call.method === 'chat.postMessage' && call.args.channel === channel);
const updates = (r: BotRig, channel: string) =>
  r.slack.calls.filter((call) => call.method === 'chat.update' && call.args.channel === channel);

/** The buttons of a message, by action id. */
function buttons(message: Json): Map<string, Json> {
  const found = new Map<string, Json>();
  for (const block of (message.blocks ?? []) as Json[])
    for (const element of (block.elements ?? []) as Json[])
      if (element.type === 'button') found.set(String(element.action_id), element);
  return found;
}

/** The watch card a channel got (its first top-level post with watch metadata), once posted. */
function cardIn(r: BotRig, channel: string): Promise<SlackCall> {
  return r.slack.waitFor(() =>
    posts(r, channel).find(
      (call) =>
        call.args.thread_ts === undefined && JSON.stringify(call.args.metadata ?? '').includes('eventops_watch'),
    ),
  );
}

/** The card as it stands now: its last edit, or the post itself. */
function cardNow(r: BotRig, channel: string, card: SlackCall): Json {
  const ts = r.slack.postedTs[r.slack.calls.filter((c) => c.method === 'chat.postMessage').indexOf(card)];
  return (
    updates(r, channel)
      .filter((call) => call.args.ts === ts)
      .at(-1)?.args ?? card.args
  );
}

/** The `ts` chat.postMessage gave a post. */
const tsOf = (r: BotRig, post: SlackCall) =>
  r.slack.postedTs[r.slack.calls.filter((c) => c.method === 'chat.postMessage').indexOf(post)] as string;

/** `/events <text>` as `user` in `channel`, signed; its response_url. */
const command = async (r: BotRig, text: string, channel: string, user = 'U0EDITOR') =>
  (await send(r, text, user, channel)).responseUrl;

/** Everything said on a response_url, as one string. */
const saidOn = (r: BotRig, responseUrl: string) => JSON.stringify(responsesTo(r, responseUrl).map((c) => c.args));

/** Waits until something said on `responseUrl` matches `pattern`. */
const toldOn = (r: BotRig, responseUrl: string, pattern: RegExp) =>
  r.slack.waitFor(() => responsesTo(r, responseUrl).find((call) => pattern.test(JSON.stringify(call.args))));

/** Whether a call says figures were held back for a guest or a stranger, or carries figures: the answer has come. */
const answered = (call: SlackCall) =>
  figuresIn(call.args) || /not shown to guests|shown only to people/.test(JSON.stringify(call.args));

/** A signed Events API callback. */
async function slackEvent(r: BotRig, event: Record<string, unknown>) {
  const answer = await postSignedJson(r.url, SIGNING_SECRET, eventBody(event));
  expect(answer.status).toBe(200);
}

/** A watch's stored state in `channel` (the first). */
const watchIn = async (r: BotRig, channel: string) => (await r.bot.watches.list({ channel }))[0]?.watch;

/** Sets a channel watch by command in an internal channel and waits for its card to show the first check. */
async function watchedWithFigures(r: BotRig, channel: string, event: SimEvent, conditions = 'sold out') {
  const asked = await command(r, `watch ${event.id}: ${conditions}`, channel);
  const card = await cardIn(r, channel);
  await answerTo(r, asked);
  // The subject: the card shows figures while the channel is the organization's own.
  await r.slack.waitFor(() => figuresIn(cardNow(r, channel, card).blocks));
  return card;
}

describe('a watch paused because its channel became shared', () => {
  it('is unwatched with no figures and no Chart button on its card; the paused card shows none either', async () => {
    const { r, clock } = await onOneClock();
    const event = upcoming(r);
    const card = await watchedWithFigures(r, 'C0LATER', event);
    expect(buttons(cardNow(r, 'C0LATER', card)).has('watch_chart')).toBe(true);
    // The same event stays watched in a channel of the organization: its checks go on (newer figures).
    await command(r, `watch ${event.id}: sold out`, 'C0OTHER');
    await cardIn(r, 'C0OTHER');

    // The channel is shared with a partner since; what was learnt of it has expired.
    r.slack.conversations.set('C0LATER', SHARED_INFO);
    clock.advance(10 * 60_000);
    await turnsUntil(
      r,
      clock,
      async () => (await watchIn(r, 'C0LATER'))?.paused?.reason === 'shared_with_another_organization',
      'the pause of the watch in C0LATER',
    );
    // Its owner is told privately (their DM), naming the sharing.
    const told = await r.slack.waitFor(() =>
      posts(r, 'U0EDITOR').find((call) => /shared with another organization/.test(JSON.stringify(call.args))),
    );
    expect(figuresIn(told.args)).toBe(false);
    // The paused card: no figures, no Chart button (the partner reads the channel now). The turn
    // that paused the watch has returned, so any edit of the card it made is recorded already.
    const paused = cardNow(r, 'C0LATER', card);
    expect(JSON.stringify(paused.blocks), 'the paused card says it is paused').toContain('Paused');
    expect(figuresIn(paused), 'figures on the paused card in the shared channel').toBe(false);
    expect(buttons(paused).has('watch_chart'), 'a Chart button on the paused card').toBe(false);

    // More checks of the event elsewhere: the newest figures exist.
    r.sim.setFigures(event.id, { ticketsSold: Math.floor(event.capacity / 3) });
    await turnsUntilChecked(r, clock);

    const editsBefore = updates(r, 'C0LATER').length;
    const unwatch = await command(r, `unwatch ${event.id}`, 'C0LATER');
    await r.slack.waitFor(() => responsesTo(r, unwatch)[0]);
    const stopped = await r.slack.waitFor(() =>
      updates(r, 'C0LATER')
        .slice(editsBefore)
        .find((call) => /stopped this watch/.test(JSON.stringify(call.args.blocks))),
    );
    expect(figuresIn(stopped.args)).toBe(false);
    expect(buttons(stopped.args).has('watch_chart')).toBe(false);
    expect(JSON.stringify(stopped.args.blocks)).toContain('not shown here');
    // Nothing else in the shared channel carries figures since it was shared.
    expect(posts(r, 'C0LATER').filter((call) => call !== card && figuresIn(call.args))).toEqual([]);
    expect(figuresIn(responsesTo(r, unwatch).map((call) => call.args))).toBe(false);
  });
});

describe('the end-of-event summary in a channel shared after the last check', () => {
  it('gives no final figures in its reply or on the ended card, when the event is over or unlisted', async () => {
    const { r, clock } = await onOneClock({ TICKETING_REPORT_CACHE_TTL: '0' });
    const over = upcoming(r, 0);
    const overCard = await watchedWithFigures(r, 'C0ENDS', over);
    const overEnds = (await watchIn(r, 'C0ENDS'))?.endsAtMs ?? over.startsAtMs + 86_400_000;
    // An event that starts a day after the first one ends: still upcoming when that one is over.
    const later = r.sim.catalog.events.find(
      (each) => each.status === 'published' && each.startsAtMs > overEnds + 86_400_000,
    );
    if (!later) throw new Error('the seed has a later event');
    const laterCard = await watchedWithFigures(r, 'C0GOES', later);

    // Both channels are shared with a partner after the watches' last checks (no event told of it).
    r.slack.conversations.set('C0ENDS', SHARED_INFO);
    r.slack.conversations.set('C0GOES', SHARED_INFO);
    // The first event is over; the service answers "not found" for the other one from now on.
    clock.advance(Math.max(0, overEnds - clock.now()) + 60_000);
    r.sim.forceAnswer(2, 404, { error: { code: 'not_found', message: 'No such event' } });
    await turnsUntil(
      r,
      clock,
      async () => (await watchIn(r, 'C0ENDS')) === undefined && (await watchIn(r, 'C0GOES')) === undefined,
      'the end of both watches',
    );

    for (const [channel, card, title] of [
      ['C0ENDS', overCard, /is over/],
      ['C0GOES', laterCard, /no longer listed/],
    ] as const) {
      const cardTs = tsOf(r, card);
      // The summary goes in the card's thread, without figures; the card says the watch ended, without figures.
      const summaries = posts(r, channel).filter((call) => call.args.thread_ts === cardTs);
      expect(summaries, `${channel}: one summary`).toHaveLength(1);
      expect(JSON.stringify(summaries[0]?.args.blocks), channel).toMatch(title);
      expect(figuresIn(summaries[0]?.args), `${channel} summary`).toBe(false);
      const ended = updates(r, channel)
        .filter((call) => call.args.ts === cardTs)
        .at(-1);
      expect(JSON.stringify(ended?.args.blocks), `${channel} card`).toContain('Watch ended');
      expect(figuresIn(ended?.args), `${channel} card`).toBe(false);
    }
  });
});

describe('when Slack could not say who reads a conversation', () => {
  it('holds a watch check (no alert, no figures), offers no "anyway", and channel_shared ends an "anyway"', async () => {
    const { r, clock } = await onOneClock();
    const event = upcoming(r, 0);
    const card = await watchedWithFigures(r, 'C0UNSURE', event);
    const cardTs = tsOf(r, card);
    const editsBefore = updates(r, 'C0UNSURE').length;
    // The event sells out; what was learnt of the channel expires; Slack cannot say now.
    r.sim.setFigures(event.id, { ticketsSold: event.capacity });
    clock.advance(10 * 60_000);
    r.slack.failNext('conversations.info', 'internal_error', 1_000);
    const reportsBefore = r.sim.stats().log.filter((entry) => /\/report$/.test(entry.path)).length;
    await turnsUntilChecked(r, clock, 'held');
    // The check is held, no report read for it: no alert in the thread, no edit of the card, no pause, the condition armed.
    expect(posts(r, 'C0UNSURE').filter((call) => call.args.thread_ts === cardTs)).toEqual([]);
    expect(updates(r, 'C0UNSURE').slice(editsBefore)).toEqual([]);
    const held = await watchIn(r, 'C0UNSURE');
    expect(held?.paused).toBeUndefined();
    expect(held?.conditions.map((c) => [c.armed, c.crossings])).toEqual([[true, 0]]);
    expect(r.sim.stats().log.filter((entry) => /\/report$/.test(entry.path))).toHaveLength(reportsBefore);

    // A watch asked for where Slack cannot say: privately, for me only; never "in this channel anyway".
    const unsure = await command(r, `watch ${event.id}: sold out`, 'C0UNSURE2');
    const offer = await r.slack.waitFor(() =>
      responsesTo(r, unsure).find((call) => buttons(call.args).has('watch_shared_channel_for_me')),
    );
    expect(buttons(offer.args).has('watch_shared_channel_anyway')).toBe(false);
    expect(posts(r, 'C0UNSURE2')).toEqual([]);
    r.slack.failNext('conversations.info', 'internal_error', 0);

    // Slack says a channel is shared: the person confirms the watch there anyway.
    r.slack.conversations.set(SHARED, SHARED_INFO);
    const second = upcoming(r, 1);
    const asked = await command(r, `watch ${second.id}: sold out`, SHARED);
    const answer = await r.slack.waitFor(() =>
      responsesTo(r, asked).find((call) => buttons(call.args).has('watch_shared_channel_anyway')),
    );
    const anyway = buttons(answer.args).get('watch_shared_channel_anyway') as Json;
    await click(r, 'watch_shared_channel_anyway', String(anyway.value), 'U0EDITOR', { channelId: SHARED });
    const sharedCard = await cardIn(r, SHARED);
    await turnsUntil(r, clock, async () => figuresIn(cardNow(r, SHARED, sharedCard)), 'figures on the confirmed card');
    expect((await watchIn(r, SHARED))?.sharedConfirmed).toBe(true);

    // The channel is shared again (with one more organization): the confirmation ends, the watch pauses at once.
    await slackEvent(r, { type: 'channel_shared', channel: SHARED, connected_team_id: 'T0THIRD', event_ts: '2.1' });
    const paused = await waitFor(
      async () => {
        const watch = await watchIn(r, SHARED);
        return watch?.paused && watch;
      },
      { what: 'the confirmed watch paused by channel_shared', timeoutMs: 5_000, intervalMs: 20 },
    );
    expect(paused.sharedConfirmed).toBeUndefined();
    expect(paused.paused?.reason).toBe('shared_with_another_organization');
    const now = await r.slack.waitFor((): Json | undefined => {
      const shown = cardNow(r, SHARED, sharedCard);
      return figuresIn(shown) ? undefined : shown;
    }, 5_000);
    expect(JSON.stringify(now.blocks)).toContain('Paused');
    expect(buttons(now).has('watch_chart')).toBe(false);
    // Its owner is told privately.
    await r.slack.waitFor(() =>
      posts(r, 'U0EDITOR').find((call) => /shared with another organization/.test(JSON.stringify(call.args))),
    );
  });
});

describe('the person asks too: guests and strangers', () => {
  it('a guest gets no figures from /events report, and is told privately why', async () => {
    const { r } = await onOneClock();
    r.slack.people.set(GUEST, { is_restricted: true });
    const event = upcoming(r);
    const asked = await command(r, `report ${event.id}`, 'C0001', GUEST);
    // The answer (the report, or why not) has come, wherever it went.
    const said = await r.slack.waitFor(() =>
      [...responsesTo(r, asked), ...r.slack.calls.filter((c) => c.method.startsWith('chat.'))].find(answered),
    );
    const sent = r.slack.calls.filter((c) =>
      ['chat.postMessage', 'chat.update', 'chat.postEphemeral'].includes(c.method),
    );
    expect(sent.filter((call) => figuresIn(call.args))).toEqual([]);
    expect(figuresIn(responsesTo(r, asked).map((call) => call.args))).toBe(false);
    expect(JSON.stringify(said.args)).toContain('not shown to guests');
    // Privately: on the guest's response_url or an ephemeral to them, not in a message the channel reads.
    expect
      .soft(said.method === 'chat.postEphemeral' ? said.args.user : said.method, 'where the guest is told why')
      .toMatch(/^(U0GUEST|\/response\/)/);
  });

  it('a --me watch of a guest is paused at its check, without figures, and the guest is told', async () => {
    const { r, clock } = await onOneClock();
    r.slack.people.set(GUEST, { is_restricted: true });
    const event = upcoming(r);
    const asked = await command(r, `watch ${event.id}: sold out --me`, 'C0001', GUEST);
    await r.slack.waitFor(() => responsesTo(r, asked)[0]);
    // Set by the command, or refused at once: either way the rule decides at its check.
    if (!(await watchIn(r, GUEST))) await watchDirectly(r, GUEST, event, { userId: GUEST });
    r.sim.setFigures(event.id, { ticketsSold: event.capacity });
    // Paused at its first check: the one the command made of the report it read, or a turn's.
    await turnsUntil(r, clock, async () => (await watchIn(r, GUEST))?.paused !== undefined, 'the pause');
    const toGuest = r.slack.calls.filter(
      (c) => c.args.channel === GUEST || c.args.channel === GUEST_DM || c.args.user === GUEST,
    );
    expect(toGuest.filter((call) => figuresIn(call.args))).toEqual([]);
    expect(figuresIn(responsesTo(r, asked).map((call) => call.args))).toBe(false);
    expect((await watchIn(r, GUEST))?.paused?.reason).toBe('set_by_a_guest');
    await r.slack.waitFor(() =>
      r.slack.calls.find((c) => c.args.channel === GUEST && /not shown to guests/.test(JSON.stringify(c.args))),
    );
  });

  it("the Chart button clicked by a guest is refused privately, posting nothing in the card's thread", async () => {
    const { r } = await onOneClock();
    r.slack.people.set(GUEST, { is_restricted: true });
    const event = upcoming(r);
    const card = await watchedWithFigures(r, 'C0001', event);
    const cardTs = tsOf(r, card);
    const clicked = await click(r, 'watch_chart', event.id, GUEST, { channelId: 'C0001', messageTs: cardTs });
    const inThread = () => posts(r, 'C0001').filter((call) => call.args.thread_ts === cardTs);
    // Answered: refused on the click's response_url, or a chart in the thread.
    await r.slack.waitFor(() => responsesTo(r, clicked.responseUrl)[0] ?? inThread()[0]);
    expect(inThread()).toEqual([]);
    await toldOn(r, clicked.responseUrl, /not shown to guests/);
    expect(figuresIn(responsesTo(r, clicked.responseUrl).map((call) => call.args))).toBe(false);
    // The member's click posts the chart: the same button works for them.
    await click(r, 'watch_chart', event.id, 'U0EDITOR', { channelId: 'C0001', messageTs: cardTs });
    await r.slack.waitFor(() => posts(r, 'C0001').find((call) => call.args.thread_ts === cardTs));
    expect(posts(r, 'C0001').filter((call) => call.args.thread_ts === cardTs)).toHaveLength(1);
  });

  it('a group DM with a guest, or with a stranger whose team id matches, counts as shared: its unfurls show no figures', async () => {
    const { r, clock } = await onOneClock();
    await r.bot.catalog.snapshot();
    const event = upcoming(r);
    await watchedWithFigures(r, 'C0009', event);
    await turnsUntilChecked(r, clock).catch(() => undefined);
    const url = `https://tickets.example.com/e/${event.id}`;
    r.slack.people.set(GUEST, { is_restricted: true });
    r.slack.people.set('U0STRANGER', { is_stranger: true });
    const groups = { G0GUESTS: GUEST, G0STRANGER: 'U0STRANGER', G0TEAM: 'U0BOB' };
    for (const [group, other] of Object.entries(groups)) {
      r.slack.conversations.set(group, { is_channel: false, is_group: true, is_mpim: true, is_member: true });
      r.slack.members.set(group, ['UBOT', 'U0ALICE', other]);
    }
    let ts = 1_700_000_100;
    const unfurlIn = async (channel: string) => {
      const before = r.slack.calls.filter((c) => c.method === 'chat.unfurl').length;
      await slackEvent(r, {
        type: 'link_shared',
        user: 'U0ALICE',
        channel,
        message_ts: `${++ts}.000100`,
        links: [{ url, domain: 'tickets.example.com' }],
      });
      const call = await r.slack.waitFor(() => r.slack.calls.filter((c) => c.method === 'chat.unfurl')[before]);
      expect(call.args.channel).toBe(channel);
      return JSON.stringify(call.args.unfurls);
    };
    expect(await unfurlIn('G0GUESTS')).not.toMatch(FIGURES);
    expect(await unfurlIn('G0STRANGER')).not.toMatch(FIGURES);
    // With colleagues only, the figures show: the card would have shown them.
    expect(await unfurlIn('G0TEAM')).toMatch(/Tickets sold/);
  });
});

describe('promo announcements', () => {
  it('are not made in a Slack Connect channel (the editor is told privately), but are in an internal one', async () => {
    const { r } = await onOneClock();
    r.slack.conversations.set(SHARED, SHARED_INFO);
    const { event, promo } = withPromo(r);
    const before = promo.quantity;
    const confirmIn = async (channel: string, quantity: number) => {
      const proposed = await command(r, `promo ${event.id} ${promo.id} ${quantity}`, channel);
      const proposal = await answerTo(r, proposed);
      const done = await click(r, PROMO_CONFIRM_ACTION, buttonValue(proposal, PROMO_CONFIRM_ACTION), 'U0EDITOR', {
        channelId: channel,
      });
      return JSON.stringify(await nthResponse(r, done.responseUrl));
    };
    const inShared = await confirmIn(SHARED, before + 7);
    expect(promo.quantity).toBe(before + 7);
    // The editor's answer comes after any announcement: nothing was posted in the shared channel.
    expect(posts(r, SHARED)).toEqual([]);
    expect(inShared).toContain('Not announced in this channel');
    expect(inShared).toMatch(/shared with another organization/);
    expect(posts(r, SHARED)).toEqual([]);

    const inOwn = await confirmIn('C0INTERNAL', before + 9);
    expect(inOwn).not.toContain('Not announced');
    const announced = await r.slack.waitFor(() => posts(r, 'C0INTERNAL')[0]);
    expect(JSON.stringify(announced.args)).toContain(promo.code);
    expect(JSON.stringify(announced.args)).toContain(String(before + 9));
    // Still nothing in the shared channel: the code, its new quantity and the old one stayed out.
    expect(posts(r, SHARED)).toEqual([]);
  });
});

describe('FIGURES_FOR_GUESTS', () => {
  it('=shown lets a guest’s /events report through, never a stranger’s; it takes hidden or shown', async () => {
    const { r } = await onOneClock({ FIGURES_FOR_GUESTS: 'shown' });
    r.slack.people.set(GUEST, { is_restricted: true });
    r.slack.people.set('U0STRANGER', { is_stranger: true });
    const event = upcoming(r);
    const guest = await command(r, `report ${event.id}`, 'C0001', GUEST);
    await r.slack.waitFor(() =>
      [...responsesTo(r, guest), ...updates(r, 'C0001')].find((call) => figuresIn(call.args)),
    );
    const stranger = await command(r, `report ${event.id}`, 'C0002', 'U0STRANGER');
    const strangers = () => [...responsesTo(r, stranger), ...updates(r, 'C0002'), ...posts(r, 'C0002')];
    const said = await r.slack.waitFor(() => strangers().find(answered));
    expect(figuresIn(strangers())).toBe(false);
    expect(JSON.stringify(said.args)).toMatch(/shown only to people of the organization/);
    expect(loadConfig({}).figuresPolicy).toEqual({ guestsMaySee: false });
    expect(loadConfig({ FIGURES_FOR_GUESTS: 'shown' }).figuresPolicy).toEqual({ guestsMaySee: true });
    expect(() => loadConfig({ FIGURES_FOR_GUESTS: 'sometimes' })).toThrow(/FIGURES_FOR_GUESTS/);
  });
});

/** The Slack calls that carry a message (blocks or text), with who reads each. */
const MESSAGE_METHODS = new Set([
  'chat.postMessage',
  'chat.update',
  'chat.postEphemeral',
  'chat.unfurl',
  'views.open',
  'views.update',
  'views.publish',
  'functions.completeSuccess',
]);

interface Forbidden {
  /** Conversations no figure may reach, each from the call (its index in `slack.calls`) made when it was shared. */
  conversations: Map<string, number>;
  people: Set<string>;
  responsePaths: Set<string>;
  executions: Set<string>;
}

/** Whether `call` (a Web API call or a response_url post) is read in a forbidden conversation or by a forbidden person. */
function readByForbidden(call: SlackCall, index: number, forbidden: Forbidden): boolean {
  if (call.method.startsWith('/response/')) return forbidden.responsePaths.has(call.method);
  const { args } = call;
  switch (call.method) {
    case 'chat.postMessage':
    case 'chat.update':
    case 'chat.unfurl': {
      const since = forbidden.conversations.get(String(args.channel));
      return (since !== undefined && index >= since) || forbidden.people.has(String(args.channel));
    }
    case 'chat.postEphemeral':
      return forbidden.people.has(String(args.user));
    case 'views.publish':
    case 'views.open':
    case 'views.update':
      return forbidden.people.has(String(args.user_id));
    case 'functions.completeSuccess':
      return forbidden.executions.has(String(args.function_execution_id));
    default:
      return false;
  }
}

describe('the gate across every path', () => {
  it('no call that carries a message to the shared channel or to the guest holds "Tickets sold" or "Gross revenue"', async () => {
    const { r, clock } = await onOneClock();
    await r.bot.catalog.snapshot();
    r.slack.conversations.set(SHARED, SHARED_INFO);
    r.slack.people.set(GUEST, { is_restricted: true });
    const guestUrls: string[] = [];
    const asGuest = async (text: string, channel: string) => {
      const url = await command(r, text, channel, GUEST);
      guestUrls.push(url);
      return url;
    };
    const event = upcoming(r, 0);
    const other = upcoming(r, 1);
    const { event: promoEvent, promo } = withPromo(r);
    /** Conversations no figure may reach, from the call made when each was shared. */
    const sharedSince = new Map([[SHARED, 0]]);
    // A watch in a channel to be shared before its event is over (its summary is the subject).
    await watchedWithFigures(r, 'C0ENDS', event);

    // A member's report in the shared channel: answered privately, with Post in channel.
    const memberReport = await command(r, `report ${event.id}`, SHARED);
    const report = await r.slack.waitFor(() =>
      responsesTo(r, memberReport).find((call) => buttons(call.args).has('report_post_in_channel')),
    );
    // The guest clicks its Post in channel.
    const post = buttons(report.args).get('report_post_in_channel') as Json;
    const guestPost = await click(r, 'report_post_in_channel', String(post.value), GUEST, { channelId: SHARED });
    guestUrls.push(guestPost.responseUrl);
    // Answered: refused privately, or (without the rule) posted in the channel.
    await r.slack.waitFor(
      () =>
        responsesTo(r, guestPost.responseUrl).find(answered) ??
        [...posts(r, SHARED), ...updates(r, SHARED)].find(answered),
    );
    // A watch asked for in the shared channel (not set), and one in a channel of the organization.
    await command(r, `watch ${event.id}: sold out`, SHARED);
    const card = await watchedWithFigures(r, 'C0001', event);
    // The guest: reports here and there, a --me watch, the Chart button, the watch list, App Home.
    const guestReport = await asGuest(`report ${other.id}`, 'C0001');
    const guestShared = await asGuest(`report ${other.id}`, SHARED);
    await asGuest(`watch ${other.id}: sold out --me`, 'C0001');
    const chart = await click(r, 'watch_chart', event.id, GUEST, { channelId: 'C0001', messageTs: tsOf(r, card) });
    guestUrls.push(chart.responseUrl);
    const list = await asGuest('watches', 'C0001');
    await slackEvent(r, { type: 'app_home_opened', user: GUEST, channel: GUEST_DM, tab: 'home', event_ts: '3.1' });
    // Unfurls: a member's link in the shared channel, the guest's link in the organization's channel.
    const url = `https://tickets.example.com/e/${event.id}`;
    for (const [channel, user, ts] of [
      [SHARED, 'U0ALICE', '1700000200.000100'],
      ['C0001', GUEST, '1700000201.000100'],
    ] as const)
      await slackEvent(r, {
        type: 'link_shared',
        user,
        channel,
        message_ts: ts,
        links: [{ url, domain: 'tickets.example.com' }],
      });
    // A promo change confirmed in the shared channel.
    const proposed = await command(r, `promo ${promoEvent.id} ${promo.id} ${promo.quantity + 3}`, SHARED);
    const proposal = await answerTo(r, proposed);
    const confirmed = await click(r, PROMO_CONFIRM_ACTION, buttonValue(proposal, PROMO_CONFIRM_ACTION), 'U0EDITOR', {
      channelId: SHARED,
    });
    // A channel watch whose channel is shared later (Slack says so by an event), then unwatched there.
    await watchedWithFigures(r, 'C0LATER', other);
    r.slack.conversations.set('C0LATER', SHARED_INFO);
    sharedSince.set('C0LATER', r.slack.calls.length);
    await slackEvent(r, {
      type: 'channel_shared',
      channel: 'C0LATER',
      connected_team_id: 'T0PARTNER',
      event_ts: '4.1',
    });
    // The report workflow step: run by the guest, and one posting in the shared channel.
    const executions = [`Fx${randomUUID().slice(0, 10)}`, `Fx${randomUUID().slice(0, 10)}`];
    const stepInputs = [
      { event: event.id, run_by: { id: GUEST, secret: 'x' }, post_in: 'C0OPS' },
      { event: event.id, run_by: { id: 'U0RUNNER', secret: 'x' }, post_in: SHARED },
    ];
    for (const [i, inputs] of stepInputs.entries()) {
      const answer = await postSignedJson(
        r.url,
        SIGNING_SECRET,
        functionExecutedBody('get_event_report', inputs, executions[i] as string, ['xwfp', '-', 'fake-token'].join('')),
      );
      expect(answer.status).toBe(200);
    }
    // A check of the watches: the guest's --me watch pauses, the channel's card is edited.
    r.sim.setFigures(other.id, { ticketsSold: other.capacity });
    clock.advance(10 * 60_000);
    await turnsUntilChecked(r, clock);
    await turnsUntilChecked(r, clock);
    // Paused (by the event, else by its check), the C0LATER watch is unwatched there.
    await turnsUntil(r, clock, async () => (await watchIn(r, 'C0LATER'))?.paused !== undefined, 'C0LATER paused');
    const unwatched = await command(r, `unwatch ${other.id}`, 'C0LATER');
    await r.slack.waitFor(() => responsesTo(r, unwatched)[0]);

    // Everything driven has answered (the guest's report in C0001 on its message there).
    await r.slack.waitFor(() => [...responsesTo(r, guestReport), ...updates(r, 'C0001')].find(answered));
    await answerTo(r, guestShared);
    await answerTo(r, list);
    await nthResponse(r, confirmed.responseUrl);
    await r.slack.waitFor(() => r.slack.calls.filter((c) => c.method === 'chat.unfurl').length === 2);
    await r.slack.waitFor(() => r.slack.calls.find((c) => c.method === 'views.publish' && c.args.user_id === GUEST));
    for (const execution of executions)
      await r.slack.waitFor(
        () =>
          r.slack.calls.find(
            (c) => c.method.startsWith('functions.complete') && c.args.function_execution_id === execution,
          ),
        20_000,
      );
    // C0ENDS is shared (no event says so: what was kept of it expires), then its event is over.
    r.slack.conversations.set('C0ENDS', SHARED_INFO);
    sharedSince.set('C0ENDS', r.slack.calls.length);
    const endsAt = (await watchIn(r, 'C0ENDS'))?.endsAtMs ?? event.startsAtMs + 86_400_000;
    clock.advance(Math.max(0, endsAt - clock.now()) + 60_000);
    await turnsUntil(r, clock, async () => (await watchIn(r, 'C0ENDS')) === undefined, 'the end of the C0ENDS watch');

    const forbidden: Forbidden = {
      conversations: sharedSince,
      people: new Set([GUEST, GUEST_DM]),
      responsePaths: new Set(guestUrls.map((each) => new URL(each).pathname)),
      executions: new Set(executions),
    };
    const messages = [...r.slack.calls.filter((call) => MESSAGE_METHODS.has(call.method)), ...r.slack.responses].filter(
      (call) =>
        call.args.blocks !== undefined ||
        call.args.text !== undefined ||
        call.args.unfurls !== undefined ||
        call.args.view !== undefined ||
        call.args.outputs !== undefined,
    );
    const walked = messages.filter((call) => readByForbidden(call, r.slack.calls.indexOf(call), forbidden));
    const leaks = walked
      .filter((call) => figuresIn(call.args))
      .map((call) => ({
        method: call.method,
        to: call.args.channel ?? call.args.user ?? call.args.user_id ?? call.args.function_execution_id,
        text: String(call.args.text ?? '').slice(0, 200),
      }));
    expect(leaks).toEqual([]);
    // The walk saw what it should: each forbidden reader got messages, and figures went where they may.
    const kinds = new Set(walked.map((call) => (call.method.startsWith('/response/') ? 'response_url' : call.method)));
    expect([...kinds].sort()).toEqual(
      expect.arrayContaining(['chat.postMessage', 'chat.unfurl', 'response_url', 'views.publish']),
    );
    expect(figuresIn(report.args)).toBe(true);
    expect(saidOn(r, memberReport)).toMatch(FIGURES);
    // The channels shared later got their pause, unwatch and summary: walked too.
    for (const channel of ['C0LATER', 'C0ENDS'])
      expect(walked.filter((call) => call.args.channel === channel).length, channel).toBeGreaterThan(0);
    // The guest's own link, unfolded in the organization's channel, shows none either.
    const guestLink = r.slack.calls.find((c) => c.method === 'chat.unfurl' && c.args.ts === '1700000201.000100');
    expect(guestLink && figuresIn(guestLink.args)).toBe(false);
  });
});
