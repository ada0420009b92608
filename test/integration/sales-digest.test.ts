import { webApi } from '@slack/bolt';
import { afterEach, describe, expect, it } from 'vitest';
import type { SimEvent } from '../../src/simulator/seed.js';
import { type BotRig, SIGNING_SECRET, startBot } from '../helpers/bot.js';
import { command, nthResponse, reportCalls, watchDirectly } from '../helpers/bot-actions.js';
import { aMinuteAgo, crashAndRestart } from '../helpers/digest-rig.js';
import type { SlackCall } from '../helpers/fake-slack.js';
import { commandBody, postSigned } from '../helpers/slack-requests.js';
import { waitFor } from '../helpers/wait-for.js';

let rig: BotRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const CHANNEL = 'C0001';
const SALES = `sales~${CHANNEL}`;

/** Short retries and no per-channel spacing: the guarantees, not Slack's pace, are under test. */
const fastDigests = () => startBot({ compose: { digestRetryBaseMs: 100, digestChannelSpacingMs: 10 } });

async function ask(r: BotRig, text: string, user = 'U0EDITOR'): Promise<string> {
  const { responseUrl } = await command(r, `digest ${text}`, user);
  return JSON.stringify(await nthResponse(r, responseUrl));
}

/** The answer to a command after any "fetching the event's report" notice. */
async function answerOf(r: BotRig, text: string): Promise<string> {
  const { responseUrl } = await command(r, text);
  const path = new URL(responseUrl).pathname;
  const answer = await r.slack.waitFor(() =>
    r.slack.responses.find((call) => call.method === path && !String(call.args.text).startsWith(':hourglass')),
  );
  return JSON.stringify(answer.args);
}

const posts = (r: BotRig): SlackCall[] => r.slack.calls.filter((call) => call.method === 'chat.postMessage');
/** The sales digests posted (or tried) in the channel: their metadata names the sales subscription. */
const salesPosts = (r: BotRig) =>
  posts(r).filter((call) => JSON.stringify(call.args.metadata ?? {}).includes(`"subscription":"${SALES}"`));
const eventDigestPosts = (r: BotRig) =>
  posts(r).filter((call) => JSON.stringify(call.args.metadata ?? {}).includes(`"subscription":"${CHANNEL}"`));

function upcoming(r: BotRig): SimEvent {
  const event = r.sim.catalog.events.find(
    (e) => e.status === 'published' && e.startsAtMs > Date.now() + 5 * 86_400_000 && e.capacity > 200,
  );
  if (!event) throw new Error('no upcoming event in the seed');
  return event;
}

/** Watches an event in the channel and gives it three days of stored sales before today's read. */
async function watchedWithHistory(r: BotRig): Promise<SimEvent> {
  const event = upcoming(r);
  expect(await answerOf(r, `watch ${event.id}: sold out`)).not.toContain('warning');
  const now = Date.now();
  for (const [hoursAgo, sold] of [
    [72, 10],
    [48, 30],
    [24, 55],
    [3, 80],
  ] as const)
    await r.bot.history.record(event.id, { at: now - hoursAgo * 3_600_000, sold, capacity: event.capacity });
  return event;
}

describe('the sales digest through the real Bolt app', () => {
  it('is turned on beside the event digest, listed with it in status, and turned off alone', async () => {
    rig = await startBot();
    expect(await ask(rig, 'on 07:30 UTC')).toContain('Daily digest on: 07:30 UTC');
    const on = await ask(rig, 'on --sales weekly 08:00 UTC');
    expect(on).toContain('Weekly sales digest on: Mon at 08:00 UTC');
    expect(String(posts(rig).at(-1)?.args.text)).toContain('<@U0EDITOR> set up a weekly sales digest here');
    expect((await rig.bot.digests.status(SALES))?.subscription).toMatchObject({
      channelId: CHANNEL,
      kind: 'sales',
      cadence: 'weekly',
      weekdays: [1],
      time: '08:00',
      timezone: 'UTC',
      status: 'active',
    });
    // The next run of a weekly digest is a Monday.
    const next = (await rig.bot.digests.status(SALES))?.next;
    expect(new Date(`${next?.date}T12:00:00Z`).getUTCDay()).toBe(1);

    const status = await ask(rig, 'status');
    expect(status).toContain('Daily digest in <#C0001>');
    expect(status).toContain('Weekly sales digest in <#C0001>');
    expect(status).toContain('Time: 07:30 UTC');
    expect(status).toContain('Time: 08:00 UTC');
    const salesOnly = await ask(rig, 'status --sales');
    expect(salesOnly).toContain('Weekly sales digest in <#C0001>');
    expect(salesOnly).not.toContain('Daily digest in');

    expect(await ask(rig, 'off --sales')).toContain('Sales digest off for this channel.');
    expect(await rig.bot.digests.status(SALES)).toBeUndefined();
    expect((await rig.bot.digests.status(CHANNEL))?.subscription.time).toBe('07:30');
    const after = await ask(rig, 'status');
    expect(after).toContain('Daily digest in <#C0001>');
    expect(after).not.toContain('sales digest in');
    expect(await ask(rig, 'status --sales')).toContain('This channel has no sales digest');
    expect(await ask(rig, 'now --sales')).toContain('This channel has no sales digest');
  });

  it('refuses what a sales digest cannot take, saving nothing', async () => {
    rig = await startBot();
    expect(await ask(rig, 'on --sales --days 3')).toContain('--days is for the event digest');
    expect(await ask(rig, 'on --sales weekly --weekdays mon-fri')).toContain('posts on one day');
    expect(await ask(rig, 'on weekly')).toContain('add --sales');
    expect(await rig.bot.digests.status(SALES)).toBeUndefined();
    expect(posts(rig)).toEqual([]);
  });

  it('posts a sales digest from the stored history only: a chart, the forecast in words, no report call, once a day', async () => {
    rig = await fastDigests();
    const event = await watchedWithHistory(rig);
    expect(await ask(rig, 'on --sales daily 08:00 UTC')).toContain('Daily sales digest on: 08:00 UTC');
    const before = reportCalls(rig);

    expect(await ask(rig, 'now --sales')).toContain("Posted today's sales digest.");
    const [digest] = salesPosts(rig);
    expect(digest?.args.channel).toBe(CHANNEL);
    const blocks = JSON.stringify(digest?.args.blocks);
    expect(blocks).toContain('"type":"data_visualization"');
    expect(blocks).toContain('Daily sales digest');
    expect(blocks).toContain(event.name.slice(0, 20));
    expect(blocks).toMatch(/Projected|No forecast yet/);
    expect(blocks).toContain('no report was fetched for this digest');
    expect(String(digest?.args.text)).toContain('tickets sold since');
    expect(reportCalls(rig)).toBe(before);

    expect(await ask(rig, 'now --sales')).toContain("Today's sales digest was already posted here.");
    expect(salesPosts(rig)).toHaveLength(1);
    // The channel's event digest is its own: its own claim, its own post.
    await ask(rig, 'on 07:00 UTC');
    expect(await ask(rig, 'now')).toContain("Posted today's digest.");
    expect(eventDigestPosts(rig)).toHaveLength(1);
    expect(salesPosts(rig)).toHaveLength(1);
    expect(reportCalls(rig)).toBe(before);
    expect((await rig.bot.digests.status(SALES))?.subscription.lastRun?.outcome).toBe('sent');
  });

  it('retries a failed post once, and reads its "since" from the previous sales digest', async () => {
    rig = await fastDigests();
    await watchedWithHistory(rig);
    await ask(rig, 'on --sales daily 08:00 UTC');
    rig.slack.failNext('chat.postMessage', 'internal_error');
    expect(await ask(rig, 'now --sales')).toContain('could not be posted just now');
    const delivered = await rig.slack.waitFor(() => salesPosts(rig as BotRig)[1]);
    expect(delivered.args.channel).toBe(CHANNEL);
    await waitFor(async () => (await rig?.bot.digests.status(SALES))?.subscription.lastRun?.outcome === 'sent', {
      what: 'the retry to be recorded as sent',
    });
    expect(salesPosts(rig)).toHaveLength(2);
    expect((await rig.bot.digests.status(SALES))?.subscription.lastSentAt).toBeDefined();
  });

  it('after a crash mid-post, finds the sales digest in the channel by its metadata and does not post it twice', async () => {
    rig = await fastDigests();
    const due = aMinuteAgo();
    await ask(rig, `on --sales daily ${due.time} ${due.zone}`);
    const slack = new webApi.WebClient('xoxb-test', { slackApiUrl: rig.slack.apiUrl });
    // The event digest of the same date is not the sales digest.
    await slack.chat.postMessage({
      channel: CHANNEL,
      text: 'Daily digest',
      metadata: { event_type: 'eventops_digest', event_payload: { subscription: CHANNEL, date: due.date } },
    });
    await slack.chat.postMessage({
      channel: CHANNEL,
      text: 'Daily sales digest (before the crash)',
      metadata: { event_type: 'eventops_digest', event_payload: { subscription: SALES, date: due.date } },
    });
    await crashAndRestart(rig, { key: `digest:${SALES}:${due.date}`, at: Date.now() - 11 * 60_000 });
    expect(await rig.bot.digests.start()).toEqual([expect.objectContaining({ kind: 'already-sent' })]);
    expect(salesPosts(rig)).toHaveLength(1);
    expect(await ask(rig, 'now --sales')).toContain('already posted');
  });

  it('after a crash before the post, posts the sales digest once, and not again after another restart', async () => {
    rig = await fastDigests();
    await watchedWithHistory(rig);
    const due = aMinuteAgo();
    await ask(rig, `on --sales daily ${due.time} ${due.zone}`);
    // The channel's event digest, set for the same minute, holds its own claim.
    await ask(rig, `on ${due.time} ${due.zone}`);
    await crashAndRestart(rig, { key: `digest:${SALES}:${due.date}`, at: Date.now() - 11 * 60_000 });
    const outcomes = await rig.bot.digests.start();
    expect(outcomes).toHaveLength(2);
    expect(outcomes).toEqual(expect.arrayContaining([expect.objectContaining({ kind: 'sent', date: due.date })]));
    expect(salesPosts(rig)).toHaveLength(1);
    expect(eventDigestPosts(rig)).toHaveLength(1);
    expect(JSON.stringify(salesPosts(rig)[0]?.args.blocks)).toContain('data_visualization');
    await rig.restart();
    expect(await rig.bot.digests.start()).toEqual([]);
    expect(salesPosts(rig)).toHaveLength(1);
  });

  it('pauses when the channel refuses posts, and tells the person who set it up', async () => {
    rig = await fastDigests();
    await ask(rig, 'on --sales daily 08:00 UTC');
    rig.slack.failNext('chat.postMessage', 'not_in_channel');
    expect(await ask(rig, 'now --sales')).toContain('This channel refused the sales digest, so it is paused.');
    expect(rig.bot.digests.retriesPending()).toEqual([]);
    expect(await ask(rig, 'status --sales')).toContain('*Paused*');
    const told = posts(rig).find((call) => call.args.channel === 'U0EDITOR');
    expect(String(told?.args.text)).toContain('The sales digest you set up in <#C0001>');
  });

  it('sends a person’s own sales digest (--me) to their DM from their own watches', async () => {
    rig = await fastDigests();
    const event = upcoming(rig);
    await answerOf(rig, `watch ${event.id}: sold out --me`);
    expect(await ask(rig, 'on --sales --me weekly --weekdays tue 09:15 Europe/Berlin')).toContain(
      'Your weekly sales digest is on: Tue at 09:15 Europe/Berlin',
    );
    expect((await rig.bot.digests.status('sales~U0EDITOR'))?.subscription).toMatchObject({
      channelId: 'U0EDITOR',
      personal: true,
      kind: 'sales',
      weekdays: [2],
    });
    expect(await ask(rig, 'now --sales --me')).toContain("Sent today's sales digest to your DM.");
    const sent = posts(rig).filter((call) =>
      JSON.stringify(call.args.metadata ?? {}).includes('"subscription":"sales~U0EDITOR"'),
    );
    expect(sent).toHaveLength(1);
    expect(sent[0]?.args.channel).toBe('U0EDITOR');
    expect(JSON.stringify(sent[0]?.args.blocks)).toContain(event.name.slice(0, 20));
    expect(await ask(rig, 'status --me')).toContain('Your weekly sales digest, in your DM with me');
  });
  it('in a channel shared with another organization, lists only the watches someone confirmed there', async () => {
    rig = await fastDigests();
    const shared = 'C0SHARED';
    rig.slack.conversations.set(shared, { is_shared: true, is_ext_shared: true });
    const [unconfirmed, confirmed] = rig.sim.catalog.events
      .filter((e) => e.status === 'published' && e.startsAtMs > Date.now() + 5 * 86_400_000)
      .filter((e, i, all) => all.findIndex((other) => other.name.slice(0, 20) === e.name.slice(0, 20)) === i);
    if (!unconfirmed || !confirmed) throw new Error('two upcoming events in the seed');
    for (const [event, sharedConfirmed] of [
      [unconfirmed, false],
      [confirmed, true],
    ] as const)
      await watchDirectly(rig, shared, event, { sharedConfirmed });
    const inShared = async (text: string) => {
      const responseUrl = rig?.slack.responseUrl() as string;
      const body = commandBody({
        text: `digest ${text}`,
        user_id: 'U0EDITOR',
        channel_id: shared,
        response_url: responseUrl,
      });
      expect((await postSigned(rig?.url as string, SIGNING_SECRET, body)).status).toBe(200);
      return JSON.stringify(await nthResponse(rig as BotRig, responseUrl));
    };
    expect(await inShared('on --sales daily 08:00 UTC')).toContain('Daily sales digest on');
    expect(await inShared('now --sales')).toContain("Posted today's sales digest.");
    const digest = posts(rig).find((call) => JSON.stringify(call.args.metadata ?? {}).includes(`sales~${shared}`));
    const blocks = JSON.stringify(digest?.args.blocks);
    expect(blocks).toContain(confirmed.name.slice(0, 20));
    expect(blocks).not.toContain(unconfirmed.name.slice(0, 20));
  });
  it('does not post without the watches when Slack cannot say whether the channel is shared: it fails and retries', async () => {
    rig = await fastDigests();
    const event = upcoming(rig);
    await watchDirectly(rig, CHANNEL, event);
    await ask(rig, 'on --sales daily 08:00 UTC');
    rig.slack.failNext('conversations.info', 'internal_error', 1_000);
    expect(await ask(rig, 'now --sales')).toContain('could not be posted just now');
    expect(salesPosts(rig)).toEqual([]);
    expect((await rig.bot.digests.status(SALES))?.subscription.lastSentAt).toBeUndefined();
  });
});
