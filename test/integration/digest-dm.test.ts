import { webApi } from '@slack/bolt';
import { afterEach, describe, expect, it } from 'vitest';
import { type BotRig, SIGNING_SECRET, startBot } from '../helpers/bot.js';
import { command, homeShown, type Json, nthResponse } from '../helpers/bot-actions.js';
import { aMinuteAgo, crashAndRestart } from '../helpers/digest-rig.js';
import type { SlackCall } from '../helpers/fake-slack.js';
import { eventBody, postSigned, postSignedJson } from '../helpers/slack-requests.js';
import { waitFor } from '../helpers/wait-for.js';

let rig: BotRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const ME = 'U0EDITOR';
/** What `conversations.open` of the fake Slack names the DM with U0EDITOR. */
const MY_DM = 'D0EDITOR';

/** Short retries and no per-channel spacing: the guarantees, not Slack's pace, are under test. */
const fastDigests = () => startBot({ compose: { digestRetryBaseMs: 100, digestChannelSpacingMs: 10 } });

async function ask(r: BotRig, text: string): Promise<string> {
  const { responseUrl } = await command(r, `digest ${text}`, ME);
  return JSON.stringify(await nthResponse(r, responseUrl));
}

const postsTo = (r: BotRig, channel: string): SlackCall[] =>
  r.slack.calls.filter((call) => call.method === 'chat.postMessage' && call.args.channel === channel);
/** Digest posts to the person's id, refused or not (the fake Slack records every call). */
const digestPosts = (r: BotRig) => postsTo(r, ME).filter((call) => call.args.metadata !== undefined);

describe('personal digests by DM through the real Bolt app', () => {
  it('turns one on at 09:00 in the person’s Slack zone, DMs them first, and keeps it apart from the channel’s', async () => {
    rig = await startBot();
    const answer = await ask(rig, 'on --me');
    expect(answer).toContain(
      "Your daily digest is on: 09:00 America/New_York (your Slack timezone), today's events, in your DM with me",
    );
    const [hello] = postsTo(rig, ME);
    expect(String(hello?.args.text)).toContain(':wave: Your daily digest is on');
    expect(rig.slack.calls.find((call) => call.method === 'users.info')?.args.user).toBe(ME);
    expect((await rig.bot.digests.status(ME))?.subscription).toMatchObject({
      channelId: ME,
      personal: true,
      time: '09:00',
      timezone: 'America/New_York',
      status: 'active',
    });
    // Nothing in the channel it was typed in: no announcement, no channel digest.
    expect(postsTo(rig, 'C0001')).toEqual([]);
    expect(await rig.bot.digests.status('C0001')).toBeUndefined();
    expect(await ask(rig, 'status')).toContain('This channel has no daily digest');

    const status = await ask(rig, 'status --me');
    expect(status).toContain('Your daily digest, in your DM with me');
    expect(status).toContain('Time: 09:00 America/New_York');
    expect(status).toContain('Next run:');
    expect(await ask(rig, 'off --me')).toContain('Your daily digest is off.');
    expect(await rig.bot.digests.status(ME)).toBeUndefined();
    expect(await ask(rig, 'status --me')).toContain('You have no daily digest of your own');
  });

  it('takes the options of a channel digest and refuses bad ones the same way, saving nothing', async () => {
    rig = await startBot();
    expect(await ask(rig, 'on --me 25:00')).toContain('is not a time of day');
    expect(await ask(rig, 'on 7:30 Europe/Berlin --days 3 --match jazz --weekdays mon-fri --me')).toContain(
      'Your daily digest is on: 07:30 Europe/Berlin',
    );
    expect((await rig.bot.digests.status(ME))?.subscription).toMatchObject({
      days: 3,
      match: 'jazz',
      weekdays: [1, 2, 3, 4, 5],
    });
  });

  it('sets nothing up when the DM is refused', async () => {
    rig = await startBot();
    rig.slack.failNext('chat.postMessage', 'cannot_dm_bot');
    expect(await ask(rig, 'on --me')).toContain('I could not send you a DM (`cannot_dm_bot`)');
    expect(await rig.bot.digests.status(ME)).toBeUndefined();
  });

  it('sends today’s digest to the DM once: retried after a failure, "already sent" after, and not again after a restart', async () => {
    rig = await fastDigests();
    const due = aMinuteAgo();
    expect(await ask(rig, `on --me ${due.time} ${due.zone}`)).toContain('Your daily digest is on');
    rig.slack.failNext('chat.postMessage', 'internal_error');
    expect(await ask(rig, 'now --me')).toContain('could not be sent just now');
    // The refused attempt, then the retry that delivers it, both to the person's id.
    const delivered = await rig.slack.waitFor(() => digestPosts(rig as BotRig)[1]);
    expect(delivered.args.metadata).toEqual({
      event_type: 'eventops_digest',
      event_payload: { subscription: ME, date: due.date },
    });
    await waitFor(async () => (await rig?.bot.digests.status(ME))?.subscription.lastRun?.outcome === 'sent', {
      what: 'the retry to be recorded as sent',
    });
    expect(await ask(rig, 'now --me')).toContain("Today's digest was already sent to your DM.");

    await rig.restart();
    expect(await rig.bot.digests.start()).toEqual([]);
    expect(digestPosts(rig)).toHaveLength(2);
    expect(JSON.stringify(await ask(rig, 'status --me'))).toContain(`${due.date}: sent`);
  });

  it('after a crash mid-post, reads the DM (conversations.open, then its history) and does not send it twice', async () => {
    rig = await fastDigests();
    const due = aMinuteAgo();
    await ask(rig, `on --me ${due.time} ${due.zone}`);
    // The crashed run's post reached the DM; its claim was never settled.
    const slack = new webApi.WebClient('xoxb-test', { slackApiUrl: rig.slack.apiUrl });
    await slack.chat.postMessage({
      channel: ME,
      text: 'Daily digest (before the crash)',
      metadata: { event_type: 'eventops_digest', event_payload: { subscription: ME, date: due.date } },
    });
    await crashAndRestart(rig, { key: `digest:${ME}:${due.date}`, at: Date.now() - 11 * 60_000 });

    expect(await rig.bot.digests.start()).toEqual([expect.objectContaining({ kind: 'already-sent' })]);
    expect(rig.slack.calls.find((call) => call.method === 'conversations.open')?.args.users).toBe(ME);
    const read = rig.slack.calls.find((call) => call.method === 'conversations.history');
    expect(read?.args.channel).toBe(MY_DM);
    expect(String(read?.args.include_all_metadata)).toBe('true');
    expect(digestPosts(rig)).toHaveLength(1);
    expect(await ask(rig, 'now --me')).toContain('already sent');
  });

  it('after a crash before the post, finds nothing in the DM and sends the digest once', async () => {
    rig = await fastDigests();
    const due = aMinuteAgo();
    await ask(rig, `on --me ${due.time} ${due.zone}`);
    await crashAndRestart(rig, { key: `digest:${ME}:${due.date}`, at: Date.now() - 11 * 60_000 });

    expect(await rig.bot.digests.start()).toEqual([expect.objectContaining({ kind: 'sent', date: due.date })]);
    expect(rig.slack.calls.some((call) => call.method === 'conversations.history' && call.args.channel === MY_DM)).toBe(
      true,
    );
    await rig.restart();
    expect(await rig.bot.digests.start()).toEqual([]);
    expect(digestPosts(rig)).toHaveLength(1);
  });

  it.each(['user_not_found', 'account_inactive'])(
    'pauses the digest of a person who left (%s): no retry, no DM about it, nothing after a restart',
    async (code) => {
      rig = await fastDigests();
      const due = aMinuteAgo();
      await ask(rig, `on --me ${due.time} ${due.zone}`);
      rig.slack.failNext('chat.postMessage', code);
      expect(await ask(rig, 'now --me')).toContain(`I could not DM you (${code}), so your digest is paused`);
      const attempts = () => postsTo(rig as BotRig, ME).length;
      const after = attempts();
      expect(await ask(rig, 'status --me')).toContain(`*Paused*: I could not DM you (${code})`);
      // No attempt is scheduled to come.
      expect(rig.bot.digests.retriesPending()).toEqual([]);
      expect(attempts()).toBe(after);
      await rig.restart();
      expect(await rig.bot.digests.start()).toEqual([]);
      expect(await ask(rig, 'now --me')).toContain('so your digest is paused');
      expect(attempts()).toBe(after);
      // The one refused attempt, and no DM telling anyone it is paused.
      expect(digestPosts(rig)).toHaveLength(1);
      expect(postsTo(rig, ME).filter((call) => String(call.args.text).includes('paused'))).toEqual([]);
    },
  );
});

/** A click or a pick on the home tab (`container.type` view, no response_url). */
function homeActionBody(action: Json, userId = ME): string {
  const payload = {
    type: 'block_actions',
    team: { id: 'T0001', domain: 'test' },
    user: { id: userId, username: 'someone', team_id: 'T0001' },
    api_app_id: 'A0001',
    token: 'legacy-verification-token',
    container: { type: 'view', view_id: 'V0HOME' },
    trigger_id: '123.456.abc',
    view: { id: 'V0HOME', type: 'home', blocks: [], state: { values: {} }, hash: '1.abc' },
    actions: [{ block_id: 'b1', action_ts: '1.3', ...action }],
  };
  return `payload=${encodeURIComponent(JSON.stringify(payload))}`;
}

/** The home tab published after `since` calls, as JSON text (see `homeShown`). */
const nextHome = (r: BotRig, since: number): Promise<string> => homeShown(r, ME, since);

async function onHome(r: BotRig, action: Json): Promise<string> {
  const since = r.slack.calls.length;
  const result = await postSigned(r.url, SIGNING_SECRET, homeActionBody(action));
  expect(result.status).toBe(200);
  return nextHome(r, since);
}

describe('the personal digest on App Home', () => {
  it('turns it on with a button, moves it with the time picker, and turns it off', async () => {
    rig = await startBot();
    const since = rig.slack.calls.length;
    await postSignedJson(
      rig.url,
      SIGNING_SECRET,
      eventBody({ type: 'app_home_opened', user: ME, channel: 'D0001', tab: 'home', event_ts: '1.1' }),
    );
    const off = await nextHome(rig, since);
    expect(off).toContain('Your daily digest');
    expect(off).toContain('"action_id":"digest_home_on"');
    expect(off).toContain('Your watches');

    const on = await onHome(rig, { type: 'button', action_id: 'digest_home_on', value: 'digest_home_on' });
    expect(String(postsTo(rig, ME)[0]?.args.text)).toContain(':wave: Your daily digest is on');
    expect(on).toContain('*On*');
    expect(on).toContain('"action_id":"digest_home_off"');
    expect(on).toContain('{"type":"timepicker","action_id":"digest_home_time","initial_time":"09:00"}');
    expect((await rig.bot.digests.status(ME))?.subscription).toMatchObject({
      personal: true,
      time: '09:00',
      timezone: 'America/New_York',
    });

    const moved = await onHome(rig, { type: 'timepicker', action_id: 'digest_home_time', selected_time: '07:15' });
    expect(moved).toContain('"initial_time":"07:15"');
    expect((await rig.bot.digests.status(ME))?.subscription.time).toBe('07:15');
    // A stale "Turn on" does not DM the person again.
    await onHome(rig, { type: 'button', action_id: 'digest_home_on', value: 'digest_home_on' });
    expect(postsTo(rig, ME)).toHaveLength(1);

    const gone = await onHome(rig, { type: 'button', action_id: 'digest_home_off', value: 'digest_home_off' });
    expect(gone).toContain('"action_id":"digest_home_on"');
    expect(await rig.bot.digests.status(ME)).toBeUndefined();
    const late = await onHome(rig, { type: 'timepicker', action_id: 'digest_home_time', selected_time: '08:00' });
    expect(late).toContain('You have no daily digest: turn it on first.');
    expect(await rig.bot.digests.status(ME)).toBeUndefined();
  });

  it('says under the section when the DM is refused, and turns a paused digest on again with its settings', async () => {
    rig = await fastDigests();
    rig.slack.failNext('chat.postMessage', 'cannot_dm_bot');
    const refused = await onHome(rig, { type: 'button', action_id: 'digest_home_on', value: 'digest_home_on' });
    expect(refused).toContain('I could not send you a DM (`cannot_dm_bot`), so your digest was not set up.');
    expect(await rig.bot.digests.status(ME)).toBeUndefined();

    await ask(rig, 'on --me 06:40 Europe/Oslo --days 2');
    rig.slack.failNext('chat.postMessage', 'user_not_found');
    await ask(rig, 'now --me');
    const since = rig.slack.calls.length;
    await postSignedJson(
      rig.url,
      SIGNING_SECRET,
      eventBody({ type: 'app_home_opened', user: ME, channel: 'D0001', tab: 'home', event_ts: '1.2' }),
    );
    const shown = await nextHome(rig, since);
    expect(shown).toContain('*Paused*: I could not DM you (user_not_found)');
    expect(shown).toContain('Turn on again');

    const again = await onHome(rig, { type: 'button', action_id: 'digest_home_on', value: 'digest_home_on' });
    expect(again).toContain('*On*');
    expect((await rig.bot.digests.status(ME))?.subscription).toMatchObject({
      status: 'active',
      time: '06:40',
      timezone: 'Europe/Oslo',
      days: 2,
    });
  });
});
