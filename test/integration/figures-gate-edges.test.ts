import { describe, expect, it } from 'vitest';
import type { SimEvent } from '../../src/simulator/seed.js';
import type { BotRig } from '../helpers/bot.js';
import { answerTo, click, type Json, pickInWatchForm, responsesTo, watchDirectly } from '../helpers/bot-actions.js';
import {
  buttons,
  cardIn,
  cardNow,
  command,
  figuresIn,
  GUEST,
  heard,
  posts,
  SHARED_INFO,
  saidOn,
  sentTo,
  setPromoStep,
  slackEvent,
  turnsUntil,
  upcoming,
  useBotOnOneClock,
  watchIn,
  withPromo,
} from './figures-gate-rig.js';

/**
 * The figures rule's last edges (issue 42, items 5 to 10), on the real Bolt app with signed
 * requests, the fake Slack and the simulator over loopback.
 */

const started = useBotOnOneClock();

const reportCalls = (r: BotRig) => r.sim.stats().log.filter((entry) => /\/report$/.test(entry.path)).length;

describe('a Slack Connect channel with a guest of the workspace among its members', () => {
  it('"Post in channel" and "watch here anyway", offered before the guest joined, show no figures there', async () => {
    const { r } = await started();
    const channel = 'C0CONNECT';
    r.slack.conversations.set(channel, SHARED_INFO);
    r.slack.members.set(channel, ['UBOT', 'U0EDITOR']);
    const [first, second] = [upcoming(r, 0), upcoming(r, 1)];
    // Both choices are offered while no guest is among the members.
    const asked = await command(r, `report ${first.id}`, channel);
    const report = await r.slack.waitFor(() =>
      responsesTo(r, asked).find((call) => buttons(call.args).has('report_post_in_channel')),
    );
    const post = buttons(report.args).get('report_post_in_channel') as Json;
    const watchAsked = await command(r, `watch ${second.id}: sold out`, channel);
    const refusal = await r.slack.waitFor(() =>
      responsesTo(r, watchAsked).find((call) => buttons(call.args).has('watch_shared_channel_anyway')),
    );
    const anyway = buttons(refusal.args).get('watch_shared_channel_anyway') as Json;

    // A guest of our own workspace joins; Slack says so.
    r.slack.people.set(GUEST, { is_restricted: true });
    r.slack.members.set(channel, ['UBOT', 'U0EDITOR', GUEST]);
    await heard(r, { type: 'member_joined_channel', user: GUEST, channel, team: 'T0001' });

    const reportsBefore = reportCalls(r);
    const posting = await click(r, 'report_post_in_channel', String(post.value), 'U0EDITOR', { channelId: channel });
    await r.slack.waitFor(() =>
      responsesTo(r, posting.responseUrl).find((call) =>
        /Guests of this workspace are members/.test(JSON.stringify(call.args)),
      ),
    );
    const watching = await click(r, 'watch_shared_channel_anyway', String(anyway.value), 'U0EDITOR', {
      channelId: channel,
    });
    const answer = await r.slack.waitFor(() => responsesTo(r, watching.responseUrl)[0]);
    // Refused again, and no "anyway" offered any more: a choice never lifts a guest.
    expect(JSON.stringify(answer.args)).toMatch(/guests of this workspace are among its members/);
    expect(buttons(answer.args).has('watch_shared_channel_anyway')).toBe(false);
    expect(await r.bot.watches.list({ channel })).toHaveLength(0);
    for (const call of sentTo(r, channel)) expect(figuresIn(call.args), call.method).toBe(false);
    expect(posts(r, channel)).toEqual([]);
    // Nothing spent on either: the rule was asked before a report.
    expect(reportCalls(r)).toBe(reportsBefore);

    // A report asked for there now comes privately, with no button to post it.
    const again = await command(r, `report ${first.id}`, channel);
    await r.slack.waitFor(() => figuresIn(saidOn(r, again)));
    for (const call of responsesTo(r, again)) expect(buttons(call.args).has('report_post_in_channel')).toBe(false);
    expect(saidOn(r, again)).toMatch(/guests of this workspace are among its members/);
  });
});

/** What a condition's state says (each derived from the figures): none of it where they are held. */
const STATES =
  /already crossed|: watching|crossed \(|:white_check_mark: crossed|cannot be checked|not judged yet|\*Alerts\*/;

describe('cards, watch lists and answers that hold figures back', () => {
  it('hold back what is derived from them too: crossings, states and the promo codes a condition names', async () => {
    const { r, clock } = await started();
    const { event, promo } = withPromo(r);
    r.sim.setFigures(event.id, { ticketsSold: Math.floor(event.capacity / 2) });
    const conditions = 'sold >= 40%, sold >= 95%';

    // A member's channel watch in a channel with a guest among its members: its card says nothing
    // of where sales stand ("already crossed", "watching").
    r.slack.people.set(GUEST, { is_restricted: true });
    r.slack.members.set('C0MIXED', ['UBOT', 'U0EDITOR', GUEST]);
    await command(r, `watch ${event.id}: ${conditions}`, 'C0MIXED');
    const mixed = await cardIn(r, 'C0MIXED');
    await r.slack.waitFor(() =>
      /Sales and revenue are not shown here/.test(JSON.stringify(cardNow(r, 'C0MIXED', mixed))),
    );

    // A channel of the organization alone, where the card shows them all...
    await command(r, `watch ${event.id}: ${conditions}`, 'C0OPS');
    const card = await cardIn(r, 'C0OPS');
    await r.slack.waitFor(() => /already crossed/.test(JSON.stringify(cardNow(r, 'C0OPS', card).blocks)));
    // ...and a condition the report cannot answer, which names the codes it does.
    await r.bot.watches.watch({
      channel: 'C0OPS',
      personal: false,
      event: { id: event.id, name: event.name, startsAtMs: event.startsAtMs, endsAtMs: event.startsAtMs + 3_600_000 },
      userId: 'U0EDITOR',
      conditions: [{ kind: 'left', code: 'NOSUCHCODE', max: 5, unit: 'count' }],
    });
    await turnsUntil(
      r,
      clock,
      async () => (await watchIn(r, 'C0OPS'))?.conditions.some((state) => state.unknown?.includes(promo.code)) ?? false,
      'the unknown code judged',
    );
    await r.slack.waitFor(() => JSON.stringify(cardNow(r, 'C0OPS', card).blocks).includes('cannot be checked'));

    // A guest's /events watches there lists the conditions and nothing derived from the figures.
    const listed = await command(r, 'watches', 'C0OPS', GUEST);
    await r.slack.waitFor(() => (/Watched here/.test(saidOn(r, listed)) ? true : undefined));
    expect(saidOn(r, listed)).toContain('sold &gt;= 95%');
    expect(saidOn(r, listed)).not.toMatch(STATES);
    expect(saidOn(r, listed)).not.toContain(promo.code);
    expect(figuresIn(saidOn(r, listed))).toBe(false);

    // The channel is shared: the paused card says where no condition stands either.
    const sharedFrom = r.slack.calls.length;
    r.slack.conversations.set('C0OPS', SHARED_INFO);
    await slackEvent(r, { type: 'channel_shared', channel: 'C0OPS', connected_team_id: 'T0PARTNER', event_ts: '5.1' });
    await r.slack.waitFor(() => (/Paused/.test(JSON.stringify(cardNow(r, 'C0OPS', card).blocks)) ? true : undefined));
    const since = r.slack.calls.slice(sharedFrom);
    for (const channel of ['C0OPS', 'C0MIXED'])
      for (const call of sentTo(r, channel).filter((each) => channel === 'C0MIXED' || since.includes(each))) {
        const said = JSON.stringify(call.args);
        expect(said, `${call.method} in ${channel}`).not.toMatch(STATES);
        expect(said, `${call.method} in ${channel}`).not.toContain(promo.code);
        expect(figuresIn(call.args), `${call.method} in ${channel}`).toBe(false);
      }
  });
});

describe('a guest picking events in the watch form', () => {
  it('spends no report call: the form says at once why no watch can be set', async () => {
    const { r } = await started();
    r.slack.people.set(GUEST, { is_restricted: true });
    await r.bot.catalog.snapshot();
    const before = reportCalls(r);
    const metadata = JSON.stringify({ channelId: 'C0OPS' });
    for (const n of [0, 1, 2]) {
      const from = r.slack.calls.length;
      await pickInWatchForm(r, upcoming(r, n).id, metadata, GUEST);
      const redrawn = await r.slack.waitFor(() =>
        r.slack.calls.slice(from).find((call) => call.method === 'views.update'),
      );
      expect(JSON.stringify(redrawn.args)).toContain('not shown to guests of this workspace');
      expect(figuresIn(redrawn.args)).toBe(false);
    }
    expect(reportCalls(r)).toBe(before);
  });
});

describe("changing or ending a channel's watches and digests", () => {
  it('asks who the person is, as thread-only does: a person of another organization or a guest ends nothing', async () => {
    const { r } = await started();
    const event = upcoming(r);
    await watchDirectly(r, 'C0OPS', event);
    await answerTo(r, await command(r, 'digest on 09:00 UTC', 'C0OPS'));
    expect((await r.bot.digests.status('C0OPS'))?.subscription.status).toBe('active');
    r.slack.userTeams.set('U0PARTNER', 'T0PARTNER');
    r.slack.people.set('U0PARTNER', { is_stranger: true });
    r.slack.people.set(GUEST, { is_restricted: true });

    for (const [user, text] of [
      ['U0PARTNER', `unwatch ${event.id}`],
      ['U0PARTNER', 'digest off'],
      [GUEST, 'digest off'],
      [GUEST, 'digest now'],
      [GUEST, `unwatch ${event.id}`],
    ] as const) {
      const asked = await command(r, text, 'C0OPS', user);
      const answer = await r.slack.waitFor(() => responsesTo(r, asked)[0]);
      expect(JSON.stringify(answer.args), `${user}: ${text}`).toMatch(
        /This channel's (watches are|digest is) not changed/,
      );
    }
    expect(await r.bot.watches.list({ channel: 'C0OPS' })).toHaveLength(1);
    expect((await r.bot.digests.status('C0OPS'))?.subscription.status).toBe('active');

    // A member of the organization ends them.
    await answerTo(r, await command(r, `unwatch ${event.id}`, 'C0OPS'));
    await answerTo(r, await command(r, 'digest off', 'C0OPS'));
    expect(await r.bot.watches.list({ channel: 'C0OPS' })).toHaveLength(0);
    expect((await r.bot.digests.status('C0OPS'))?.subscription.status).not.toBe('active');
  });

  it('lets a guest end them with FIGURES_FOR_GUESTS=shown, as a guest may set them then', async () => {
    const { r } = await started({ FIGURES_FOR_GUESTS: 'shown' });
    const event = upcoming(r);
    await watchDirectly(r, 'C0OPS', event);
    await answerTo(r, await command(r, 'digest on 09:00 UTC', 'C0OPS'));
    r.slack.people.set(GUEST, { is_restricted: true });
    await answerTo(r, await command(r, `unwatch ${event.id}`, 'C0OPS', GUEST));
    await answerTo(r, await command(r, 'digest off', 'C0OPS', GUEST));
    expect(await r.bot.watches.list({ channel: 'C0OPS' })).toHaveLength(0);
    expect((await r.bot.digests.status('C0OPS'))?.subscription.status).not.toBe('active');
  });
});

describe('the "Set promo quantity" step', () => {
  it('asks about the person running it and where its outputs go: quantities only for a member, posted inside', async () => {
    const { r } = await started();
    r.slack.people.set(GUEST, { is_restricted: true });
    r.slack.groups.set('S0EDITORS', [GUEST]);
    r.slack.conversations.set('C0CONNECT', SHARED_INFO);
    const { event, promo } = withPromo(r);
    const run = (runBy: string, postIn: string | undefined, quantity: number) =>
      setPromoStep(r, {
        run_by: { id: runBy, secret: 'slack-sets-this' },
        ...(postIn ? { post_in: postIn } : {}),
        event: event.id,
        promo: promo.code,
        quantity,
      });
    const QUANTITIES = /previous_quantity|new_quantity|it allowed/;

    // A member editor, posting in a channel of the organization alone: the quantities (the subject).
    const member = await run('U0EDITOR', 'C0OPS', 60);
    expect(member.method).toBe('functions.completeSuccess');
    expect(JSON.stringify(member.args.outputs)).toMatch(QUANTITIES);

    // A guest editor; a later step posting in a Slack Connect channel; no "Posts in" at all.
    for (const [runBy, postIn, words] of [
      [GUEST, 'C0OPS', 'not shown to guests of this workspace'],
      ['U0EDITOR', 'C0CONNECT', 'shared with another organization'],
      ['U0EDITOR', undefined, '"Posts in" input'],
    ] as const) {
      const quantity = 61 + (postIn?.length ?? 0);
      const done = await run(runBy, postIn, quantity);
      expect(done.method, `${runBy} in ${postIn}`).toBe('functions.completeSuccess');
      const outputs = done.args.outputs as Json;
      expect(JSON.stringify(outputs), `${runBy} in ${postIn}`).not.toMatch(QUANTITIES);
      // What the run asked for, and that it was done, are the runner's to read.
      expect(outputs).toMatchObject({ requested_quantity: quantity, outcome: 'updated' });
      expect(String(outputs.summary)).toContain(`was set to allow *${quantity}* redemptions`);
      expect(String(outputs.summary)).toContain(words);
      expect(promo.quantity).toBe(quantity);
    }
  });
});

describe('"watch here anyway" where the members of a Slack Connect channel cannot be read for good', () => {
  it('pauses with a named reason, tells its owner, and spends no report call after (more than 500 members, the app not in it)', async () => {
    const { r, clock } = await started();
    const big = Array.from({ length: 502 }, (_, i) => `U0M${String(i).padStart(4, '0')}`);
    r.slack.conversations.set('C0BIG', SHARED_INFO);
    r.slack.members.set('C0BIG', ['UBOT', ...big]);
    r.slack.conversations.set('C0LEFT', { ...SHARED_INFO, is_member: false });
    for (const [channel, n, reason] of [
      ['C0BIG', 0, 'too_many_members_to_read'],
      ['C0LEFT', 1, 'app_not_in_shared_channel'],
    ] as const) {
      await watchDirectly(r, channel, upcoming(r, n), { sharedConfirmed: true });
      await turnsUntil(r, clock, async () => (await watchIn(r, channel))?.paused !== undefined, `${channel} paused`);
      expect((await watchIn(r, channel))?.paused?.reason).toBe(reason);
      // Its owner is told why, privately.
      await r.slack.waitFor(() =>
        posts(r, 'U0EDITOR').find((call) => /paused/i.test(JSON.stringify(call.args)) && call.args.text),
      );
    }
    expect(JSON.stringify(posts(r, 'U0EDITOR').map((call) => call.args))).toMatch(/more members than I look up/);
    expect(JSON.stringify(posts(r, 'U0EDITOR').map((call) => call.args))).toMatch(/no longer in it/);
    for (const channel of ['C0BIG', 'C0LEFT']) expect(figuresIn(sentTo(r, channel).map((c) => c.args))).toBe(false);
    // Paused: the scheduler reads no report for them any more.
    const before = reportCalls(r);
    for (let i = 0; i < 5; i += 1) {
      await r.bot.watches.turn();
      clock.advance(1_000);
    }
    expect(reportCalls(r)).toBe(before);
  });
});

describe('"watch here anyway" where Slack fails to say who the members are', () => {
  it('holds the watch (not paused), spends no report call on it, and checks it once Slack answers', async () => {
    const { r, clock } = await started();
    const event = upcoming(r);
    r.slack.conversations.set('C0CONNECT', SHARED_INFO);
    r.slack.members.set('C0CONNECT', ['UBOT', 'U0EDITOR', 'U0ANNA']);
    r.slack.failNext('users.info', 'internal_error', 10_000);
    await watchDirectly(r, 'C0CONNECT', event, { sharedConfirmed: true });
    const before = reportCalls(r);
    for (let i = 0; i < 10; i += 1) {
      await r.bot.watches.turn();
      clock.advance(1_000);
    }
    expect(reportCalls(r)).toBe(before);
    expect((await watchIn(r, 'C0CONNECT'))?.paused).toBeUndefined();
    expect(figuresIn(sentTo(r, 'C0CONNECT').map((call) => call.args))).toBe(false);

    // Slack answers again: the next checks read the report (the failure was kept 30 s at most).
    r.slack.failNext('users.info', 'internal_error', 0);
    await turnsUntil(r, clock, async () => reportCalls(r) > before, 'a report read for the watch');
    expect((await watchIn(r, 'C0CONNECT'))?.paused).toBeUndefined();
  });
});

describe("a Slack Connect channel's members", () => {
  it('are read only when a choice is asked about: an unfurl there looks up none of them', async () => {
    const { r } = await started({ UNFURL_STYLE: 'classic', EVENT_PAGE_URL: 'https://tickets.example.com/e/{id}' });
    await r.bot.catalog.snapshot();
    r.slack.conversations.set('C0CONNECT', SHARED_INFO);
    r.slack.members.set('C0CONNECT', ['UBOT', 'U0EDITOR', 'U0ANNA', 'U0BEN']);
    const url = `https://tickets.example.com/e/${upcoming(r).id}`;
    await slackEvent(r, {
      type: 'link_shared',
      user: 'U0EDITOR',
      channel: 'C0CONNECT',
      message_ts: '1700000200.000100',
      links: [{ url, domain: 'tickets.example.com' }],
    });
    const unfurl = await r.slack.waitFor(() => r.slack.calls.find((call) => call.method === 'chat.unfurl'));
    expect(figuresIn(unfurl.args)).toBe(false);
    expect(r.slack.calls.filter((call) => call.method === 'conversations.members')).toEqual([]);
    const lookedUp = r.slack.calls.filter((call) => call.method === 'users.info').map((call) => call.args.user);
    expect(lookedUp).not.toContain('U0ANNA');

    // A report asked for there offers "Post in channel": a choice, so its members are read.
    const asked = await command(r, `report ${upcoming(r).id}`, 'C0CONNECT');
    await r.slack.waitFor(() => responsesTo(r, asked).find((call) => buttons(call.args).has('report_post_in_channel')));
    expect(r.slack.calls.filter((call) => call.method === 'conversations.members')).toHaveLength(1);
  });

  it('of a channel the app is not in: a watch asked for there says to invite it', async () => {
    const { r } = await started();
    r.slack.conversations.set('C0LEFT', { ...SHARED_INFO, is_member: false });
    const asked = await command(r, `watch ${upcoming(r).id}: sold out`, 'C0LEFT');
    const answer = await r.slack.waitFor(() => responsesTo(r, asked)[0]);
    expect(JSON.stringify(answer.args)).toContain('/invite @eventops');
    expect(buttons(answer.args).has('watch_shared_channel_anyway')).toBe(false);
    expect(await r.bot.watches.list({ channel: 'C0LEFT' })).toHaveLength(0);
  });
});

describe("a guest's profile or status change (user_change)", () => {
  it('looks nobody up again when the guest or stranger flags did not change', async () => {
    const { r } = await started();
    r.slack.people.set(GUEST, { is_restricted: true });
    r.slack.members.set('C0MIXED', ['UBOT', 'U0EDITOR', 'U0ANNA', GUEST]);
    const event = upcoming(r);
    // A member's report there is held back: they are told privately (an ephemeral message).
    const told = () =>
      r.slack.calls.filter((call) => call.method === 'chat.postEphemeral' && call.args.channel === 'C0MIXED');
    const reportThere = async () => {
      const n = told().length;
      await command(r, `report ${event.id}`, 'C0MIXED');
      const answer = await r.slack.waitFor(() => told()[n]);
      expect(JSON.stringify(answer.args)).toContain('Guests of this workspace are members');
    };
    await reportThere();
    const lookups = () => r.slack.calls.filter((call) => call.method === 'users.info').map((call) => call.args.user);
    const before = lookups().length;

    // The guest sets a status: Slack sends user_change, with the same flags.
    await heard(r, { type: 'user_change', user: { id: GUEST, is_restricted: true, profile: { status_text: 'out' } } });
    await reportThere();
    expect(lookups().slice(before)).toEqual([]);

    // U0ANNA is made a guest: she is asked about again.
    r.slack.people.set('U0ANNA', { is_restricted: true });
    await heard(r, { type: 'user_change', user: { id: 'U0ANNA', is_restricted: true } });
    await reportThere();
    expect(lookups().slice(before)).toContain('U0ANNA');
  });
});

describe('the answer to setting a watch', () => {
  it('asks about the person again once the report came: made a guest meanwhile, it names no crossing', async () => {
    const { r } = await started();
    const event = upcoming(r);
    r.sim.setFigures(event.id, { ticketsSold: Math.floor(event.capacity / 2) });
    // The channel is looked up before the report is read: held there, the person is made a guest.
    const looking = r.slack.holdNext('conversations.info');
    const asked = await command(r, `watch ${event.id}: sold >= 40%, sold >= 95%`, 'C0WAIT');
    await looking.reached;
    r.slack.people.set('U0EDITOR', { is_restricted: true });
    await heard(r, { type: 'user_change', user: { id: 'U0EDITOR', is_restricted: true } });
    looking.release();
    const answer = await r.slack.waitFor(() =>
      responsesTo(r, asked).find((call) => !/Fetching/.test(JSON.stringify(call.args))),
    );
    const said = JSON.stringify(answer.args);
    expect(said).toContain('not shown to guests of this workspace');
    expect(said).not.toMatch(/already crossed|Already crossed/);
    expect(figuresIn(answer.args)).toBe(false);
  });
});

describe("a guest promo editor's mistyped or missing code", () => {
  it("is answered without the report's promo codes", async () => {
    const { r } = await started();
    r.slack.people.set(GUEST, { is_restricted: true });
    r.slack.groups.set('S0EDITORS', [GUEST]);
    const promo = r.sim.catalog.promos.find(
      (p) => p.code === 'EARLYBIRD' && r.sim.catalog.events.find((e) => e.id === p.eventId)?.status === 'published',
    );
    if (!promo) throw new Error('no EARLYBIRD in the seed');
    const event = r.sim.catalog.events.find((e) => e.id === promo.eventId) as SimEvent;
    event.name = 'Lantern Parade Evening';
    // A member's change reads the event's report: its codes are known from then on.
    await answerTo(r, await command(r, `promo ${event.id} EARLYBIRD 12`, 'C0OPS'));

    const mistyped = await command(r, `promo ${event.id} EARLYBRD 12`, 'C0OPS', GUEST);
    const answer = JSON.stringify(await answerTo(r, mistyped));
    expect(answer).toContain('No code `EARLYBRD`');
    expect(saidOn(r, mistyped)).not.toContain('EARLYBIRD');
    expect(answer).not.toContain('did you mean');

    // The code left out ("Lantern Parade Evening 10" reads as the event "Lantern Parade" and the
    // code "Evening"): "which code?" lists none of them for the guest, and does for a member.
    const left = await command(r, `promo ${event.name} 10`, 'C0OPS', GUEST);
    expect(JSON.stringify(await answerTo(r, left))).toContain('promo code is missing');
    expect(saidOn(r, left)).not.toContain('EARLYBIRD');
    const member = await command(r, `promo ${event.name} 10`, 'C0OPS');
    expect(JSON.stringify(await answerTo(r, member))).toContain('EARLYBIRD');

    // A code the report does not name, close to none: the answer lists the known codes to a
    // member, and none to the guest.
    const unnamed = await command(r, `promo ${event.id} ZQXWVUT 12`, 'C0OPS', GUEST);
    expect(JSON.stringify(await answerTo(r, unnamed))).toContain('names no promo code `ZQXWVUT`');
    expect(saidOn(r, unnamed)).not.toContain('EARLYBIRD');
    const unnamedForMember = await command(r, `promo ${event.id} ZQXWVUT 12`, 'C0OPS');
    expect(JSON.stringify(await answerTo(r, unnamedForMember))).toContain('EARLYBIRD');
  });
});
