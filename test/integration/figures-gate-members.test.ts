import { describe, expect, it } from 'vitest';
import type { BotRig } from '../helpers/bot.js';
import { waitFor } from '../helpers/wait-for.js';
import {
  buttons,
  cardNow,
  command,
  figuresIn,
  GUEST,
  posts,
  SHARED_INFO,
  saidOn,
  sentTo,
  slackEvent,
  tsOf,
  upcoming,
  useBotOnOneClock,
  watchedWithFigures,
  watchIn,
} from './figures-gate-rig.js';

/**
 * The figures rule reads a channel's members (issue 33): a guest among them holds its figures,
 * from the room's first judgement and when a guest joins; a check judged before the channel was
 * shared asks again before it posts; a channel report held back at delivery is explained to the
 * asker alone. On the real Bolt app, the fake Slack and the simulator over loopback.
 */

const started = useBotOnOneClock();

/** Waits for the watch in `channel` to be paused, and returns it. */
const pausedIn = (r: BotRig, channel: string) =>
  waitFor(
    async () => {
      const watch = await watchIn(r, channel);
      return watch?.paused && watch;
    },
    { what: `the watch in ${channel} paused`, timeoutMs: 5_000, intervalMs: 20 },
  );

/** The ephemerals sent to `user` in `channel`. */
const ephemeralsTo = (r: BotRig, channel: string, user: string) =>
  r.slack.calls.filter(
    (call) => call.method === 'chat.postEphemeral' && call.args.channel === channel && call.args.user === user,
  );

describe('a guest who joins a channel with a live watch', () => {
  it('pauses it at once: its card shows no figures and no Chart button, its owner is told why', async () => {
    const { r } = await started();
    r.slack.members.set('C0ROOM', ['UBOT', 'U0EDITOR']);
    const card = await watchedWithFigures(r, 'C0ROOM', upcoming(r));
    expect(buttons(cardNow(r, 'C0ROOM', card)).has('watch_chart')).toBe(true);

    r.slack.people.set(GUEST, { is_restricted: true });
    r.slack.members.set('C0ROOM', ['UBOT', 'U0EDITOR', GUEST]);
    await slackEvent(r, { type: 'member_joined_channel', user: GUEST, channel: 'C0ROOM', team: 'T0001' });

    const paused = await pausedIn(r, 'C0ROOM');
    expect(paused.paused?.reason).toBe('read_by_guests');
    const now = await r.slack.waitFor(() => {
      const shown = cardNow(r, 'C0ROOM', card);
      return figuresIn(shown) ? undefined : shown;
    });
    expect(JSON.stringify(now.blocks)).toContain('Paused');
    expect(buttons(now).has('watch_chart')).toBe(false);
    const told = await r.slack.waitFor(() =>
      posts(r, 'U0EDITOR').find((call) => /guests of the workspace are members/.test(JSON.stringify(call.args))),
    );
    expect(figuresIn(told.args)).toBe(false);
  });

  it('changes nothing when a member of the organization joins', async () => {
    const { r } = await started();
    const card = await watchedWithFigures(r, 'C0QUIET', upcoming(r));
    const asked = r.slack.calls.filter((call) => call.method === 'conversations.info').length;
    r.slack.members.set('C0QUIET', ['UBOT', 'U0EDITOR', 'U0MEMBER']);
    await slackEvent(r, { type: 'member_joined_channel', user: 'U0MEMBER', channel: 'C0QUIET', team: 'T0001' });
    await r.slack.waitFor(() =>
      r.slack.calls.find((call) => call.method === 'users.info' && call.args.user === 'U0MEMBER'),
    );
    // The subject's counterpart: a guest's join (above) is what pauses, so this one must not.
    expect((await watchIn(r, 'C0QUIET'))?.paused).toBeUndefined();
    expect(figuresIn(cardNow(r, 'C0QUIET', card))).toBe(true);
    expect(r.slack.calls.filter((call) => call.method === 'conversations.info')).toHaveLength(asked);
  });
});

describe('a channel with a guest among its members', () => {
  it('gets no report figures; the asker alone is told why (ephemeral), the channel only that it is not here', async () => {
    const { r } = await started();
    r.slack.people.set(GUEST, { is_ultra_restricted: true });
    r.slack.members.set('C0MIXED', ['UBOT', 'U0EDITOR', GUEST]);
    const event = upcoming(r);
    await command(r, `report ${event.id}`, 'C0MIXED');

    const told = await r.slack.waitFor(() => ephemeralsTo(r, 'C0MIXED', 'U0EDITOR')[0]);
    const why = JSON.stringify(told.args);
    expect(why).toContain('Guests of this workspace are members of this conversation');
    // What they can do.
    expect(why).toContain('--me');
    expect(figuresIn(told.args)).toBe(false);
    // The channel's message says only that the report is not shown here: no figures, no reasons.
    const channel = await r.slack.waitFor(() =>
      sentTo(r, 'C0MIXED').find((call) => /not shown in this channel/.test(JSON.stringify(call.args))),
    );
    expect(channel.args.channel).toBe('C0MIXED');
    for (const call of sentTo(r, 'C0MIXED')) {
      expect(figuresIn(call.args), `${call.method} in the channel`).toBe(false);
      expect(JSON.stringify(call.args), `${call.method} in the channel`).not.toMatch(/Guests of this workspace/);
    }
  });

  it('with more members than are looked up (500) is not known: answered privately, nothing in the channel', async () => {
    const { r } = await started();
    r.slack.members.set('C0HUGE', ['UBOT', ...Array.from({ length: 501 }, (_, i) => `U0P${i}`)]);
    const asked = await command(r, `report ${upcoming(r).id}`, 'C0HUGE');
    // Kept from the channel as "Slack could not say": the report comes to the asker alone.
    await r.slack.waitFor(() => figuresIn(saidOn(r, asked)));
    expect(sentTo(r, 'C0HUGE')).toEqual([]);
    // Nobody of the 501 was looked up: the cap spends no users.info.
    const lookedUp = r.slack.calls.filter(
      (call) => call.method === 'users.info' && /^U0P/.test(String(call.args.user)),
    );
    expect(lookedUp).toEqual([]);
  });
});

describe('a check judged before its channel was shared', () => {
  it('asks the rule again before its alert goes out: no alert, the watch paused, the condition still armed', async () => {
    const { r, clock } = await started();
    const event = upcoming(r);
    const card = await watchedWithFigures(r, 'C0RACE', event);
    const cardTs = tsOf(r, card);
    // The event sells out; what was kept of the channel has expired, so the check asks Slack.
    r.sim.setFigures(event.id, { ticketsSold: event.capacity });
    clock.advance(10 * 60_000);
    const asked = r.slack.holdNext('conversations.info');
    const check = r.bot.watches.turn();
    // Slack answered "the organization's own" for the check; the answer is on its way back...
    await asked.reached;
    // ...when the channel is shared, and the event that says so is handled (forgotten, reconsidered).
    r.slack.conversations.set('C0RACE', SHARED_INFO);
    const sharedFrom = r.slack.calls.length;
    await slackEvent(r, { type: 'channel_shared', channel: 'C0RACE', connected_team_id: 'T0PARTNER', event_ts: '3.1' });
    const paused = await pausedIn(r, 'C0RACE');
    expect(paused.paused?.reason).toBe('shared_with_another_organization');
    asked.release();
    expect((await check).kind).toBe('checked');

    const alerts = posts(r, 'C0RACE').filter((call) => call.args.thread_ts === cardTs);
    expect(alerts, 'an alert in the shared channel').toEqual([]);
    const sinceShared = r.slack.calls.slice(sharedFrom);
    for (const call of sentTo(r, 'C0RACE').filter((each) => sinceShared.includes(each)))
      expect(figuresIn(call.args), call.method).toBe(false);
    expect((await watchIn(r, 'C0RACE'))?.conditions.map((c) => [c.armed, c.crossings])).toEqual([[true, 0]]);
  });
});
