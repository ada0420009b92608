import { afterEach, describe, expect, it } from 'vitest';
import type { SimEvent } from '../../src/simulator/seed.js';
import { type BotRig, SIGNING_SECRET, startBot } from '../helpers/bot.js';
import {
  answerTo,
  click as clickButton,
  type Json,
  responsesTo,
  command as sendCommand,
  submitWatchForm,
} from '../helpers/bot-actions.js';
import { aheadClock } from '../helpers/clocks.js';
import { eventBody, postSignedJson } from '../helpers/slack-requests.js';
import { waitFor } from '../helpers/wait-for.js';

let rig: BotRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** A Slack Connect channel: shared with a partner company. */
const SHARED = 'C0PARTNER';
const ENV = { TICKETING_REPORT_LIMIT: '3/1s', WATCH_MIN_INTERVAL: '1s' };

async function sharedRig() {
  const r = await startBot({ sim: { reportLimit: { limit: 3, windowMs: 1_000 } }, env: ENV });
  rig = r;
  r.slack.conversations.set(SHARED, { is_shared: true, is_ext_shared: true });
  return r;
}

/** Sends `/events <text>` in `channel`, signed; returns its response_url. */
const command = async (r: BotRig, text: string, channel: string, user = 'U0EDITOR') =>
  (await sendCommand(r, text, user, channel)).responseUrl;

/** Clicks `button` in `channel`, signed; returns its response_url. */
const click = async (r: BotRig, button: Json, channel: string, user = 'U0EDITOR') =>
  (await clickButton(r, String(button.action_id), String(button.value), user, { channelId: channel })).responseUrl;

/** The buttons of a message, by action id. */
function buttons(message: Json): Map<string, Json> {
  const found = new Map<string, Json>();
  for (const block of (message.blocks ?? []) as Json[])
    for (const element of (block.elements ?? []) as Json[])
      if (element.type === 'button') found.set(String(element.action_id), element);
  return found;
}

const postsIn = (r: BotRig, channel: string) =>
  r.slack.calls.filter((call) => call.method === 'chat.postMessage' && call.args.channel === channel);

/** An upcoming published event the watches can follow. */
function upcoming(r: BotRig): SimEvent {
  const event = r.sim.catalog.events.find(
    (each) => each.status === 'published' && each.startsAtMs > Date.now() + 86_400_000,
  );
  if (!event) throw new Error('the seed has upcoming published events');
  return event;
}

describe('a report asked for in a channel shared with another organization', () => {
  it('is answered privately with a Post in channel button that says so, and the button posts it there', async () => {
    const r = await sharedRig();
    const event = upcoming(r);
    const responseUrl = await command(r, `report ${event.id}`, SHARED);
    const final = await r.slack.waitFor(() =>
      responsesTo(r, responseUrl).find((call) => JSON.stringify(call.args).includes('Tickets sold')),
    );
    expect(postsIn(r, SHARED)).toHaveLength(0);
    const post = buttons(final.args).get('report_post_in_channel');
    if (!post) throw new Error(`no Post in channel button in ${JSON.stringify(final.args)}`);
    expect(JSON.stringify(post.text)).toContain('Post in channel');
    expect(JSON.stringify(post.confirm)).toMatch(/shared with another organization/);
    expect(JSON.stringify(final.args)).toMatch(/shared with another organization/);

    const clicked = await click(r, post, SHARED);
    // The wait shows privately; the report itself is posted once it comes.
    const posted = await r.slack.waitFor(() => postsIn(r, SHARED)[0]);
    expect(JSON.stringify(posted.args.blocks)).toContain('Tickets sold');
    expect(JSON.stringify(posted.args.blocks)).toContain(event.id);
    await r.slack.waitFor(() =>
      responsesTo(r, clicked).find((call) => JSON.stringify(call.args).includes('Posted the report in the channel')),
    );

    // A second click (a double click, or later) posts nothing more, and says so.
    const again = await click(r, post, SHARED);
    await r.slack.waitFor(() =>
      responsesTo(r, again).find((call) => JSON.stringify(call.args).includes('already posted in the channel')),
    );
    expect(postsIn(r, SHARED).filter((call) => call.args.thread_ts === undefined)).toHaveLength(1);
  });

  it('Post in channel: a refusal stays private and leaves the button usable; a guest’s click posts nothing', async () => {
    const r = await sharedRig();
    const event = upcoming(r);
    const responseUrl = await command(r, `report ${event.id}`, SHARED);
    const final = await r.slack.waitFor(() =>
      responsesTo(r, responseUrl).find((call) => JSON.stringify(call.args).includes('Tickets sold')),
    );
    const post = buttons(final.args).get('report_post_in_channel');
    if (!post) throw new Error('no Post in channel button');
    // Slack refuses the post (the bot left the channel): said privately, nothing posted, and the
    // click is not spent.
    r.slack.failNext('chat.postMessage', 'not_in_channel');
    const refused = await click(r, post, SHARED);
    await r.slack.waitFor(() =>
      responsesTo(r, refused).find((call) => JSON.stringify(call.args).includes('could not be posted in the channel')),
    );
    const attempts = () => postsIn(r, SHARED).filter((call) => JSON.stringify(call.args).includes('Tickets sold'));
    // The one attempt, which Slack refused.
    expect(attempts()).toHaveLength(1);
    // A guest's click: the figures rule holds the report back, privately.
    r.slack.people.set('U0GUEST', { is_restricted: true });
    // Its private answer is held at Slack while the editor clicks again: the guest's click has
    // let go of the button by the time it answers, so the editor's click posts this time (before,
    // it let go only after, and a click in between was told the report was on its way).
    const answering = r.slack.holdNext('response_url');
    try {
      const guest = await click(r, post, SHARED, 'U0GUEST');
      await answering.reached;
      expect(JSON.stringify(responsesTo(r, guest).at(-1)?.args)).toContain('not shown to guests');
      const retried = await click(r, post, SHARED);
      await r.slack.waitFor(() =>
        responsesTo(r, retried).find((call) => JSON.stringify(call.args).includes('Posted the report in the channel')),
      );
    } finally {
      answering.release();
    }
    expect(attempts()).toHaveLength(2);
  });

  it('is posted in a channel of the organization alone as before', async () => {
    const r = await sharedRig();
    const event = upcoming(r);
    await command(r, `report ${event.id}`, 'C0INTERNAL');
    await r.slack.waitFor(() => postsIn(r, 'C0INTERNAL')[0]);
    const final = await r.slack.waitFor(() =>
      r.slack.calls.find(
        (call) => call.method === 'chat.update' && JSON.stringify(call.args.blocks).includes('Tickets sold'),
      ),
    );
    expect(buttons(final.args).has('report_post_in_channel')).toBe(false);
  });
});

describe('a watch set in a channel shared with another organization', () => {
  it('is not set there silently: the answer offers a personal watch or the channel anyway, naming the sharing', async () => {
    const r = await sharedRig();
    const event = upcoming(r);
    const reportsBefore = r.sim.stats().admittedReports;
    const responseUrl = await command(r, `watch ${event.id}: sold out`, SHARED);
    const answer = await r.slack.waitFor(() =>
      responsesTo(r, responseUrl).find((call) => buttons(call.args).has('watch_shared_channel_anyway')),
    );
    expect(JSON.stringify(answer.args)).toMatch(/shared with another organization/);
    const anyway = buttons(answer.args).get('watch_shared_channel_anyway') as Json;
    expect(JSON.stringify(anyway.confirm)).toMatch(/shared with another organization/);
    expect(buttons(answer.args).has('watch_shared_channel_for_me')).toBe(true);
    expect(postsIn(r, SHARED)).toHaveLength(0);
    expect(await r.bot.watches.list({ channel: SHARED })).toHaveLength(0);
    // Refused before a report is spent on it.
    expect(r.sim.stats().admittedReports).toBe(reportsBefore);

    await click(r, anyway, SHARED);
    const card = await r.slack.waitFor(() => postsIn(r, SHARED).find((call) => call.args.metadata));
    expect(JSON.stringify(card.args.blocks)).toContain('sold out');
    expect(await r.bot.watches.list({ channel: SHARED })).toHaveLength(1);
  });

  it('is refused at once in a channel the bot is not in, saying how to invite it: its card could never be posted', async () => {
    const r = await sharedRig();
    const event = upcoming(r);
    r.slack.conversations.set('C0NOTIN', { is_member: false });
    const reportCallsBefore = r.sim.stats().log.filter((entry) => /\/report$/.test(entry.path)).length;
    const responseUrl = await command(r, `watch ${event.id}: sold out`, 'C0NOTIN');
    const answer = await r.slack.waitFor(() =>
      responsesTo(r, responseUrl).find((call) => JSON.stringify(call.args).includes('/invite @eventops')),
    );
    expect(JSON.stringify(answer.args)).toMatch(/not in this channel/);
    expect(await r.bot.watches.list({ channel: 'C0NOTIN' })).toHaveLength(0);
    expect(postsIn(r, 'C0NOTIN')).toHaveLength(0);
    // Refused before its report was read.
    expect(r.sim.stats().log.filter((entry) => /\/report$/.test(entry.path))).toHaveLength(reportCallsBefore);
  });

  it('records no "anyway" when the channel is no longer shared by the time the button is clicked', async () => {
    const r = await sharedRig();
    const event = upcoming(r);
    const responseUrl = await command(r, `watch ${event.id}: sold out`, SHARED);
    const answer = await r.slack.waitFor(() =>
      responsesTo(r, responseUrl).find((call) => buttons(call.args).has('watch_shared_channel_anyway')),
    );
    // The partner leaves: Slack says so, and the bot forgets what it kept of the channel.
    r.slack.conversations.set(SHARED, { is_shared: false, is_ext_shared: false });
    const unshared = await postSignedJson(
      r.url,
      SIGNING_SECRET,
      eventBody({ type: 'channel_unshared', channel: SHARED }),
    );
    expect(unshared.status).toBe(200);
    await click(r, buttons(answer.args).get('watch_shared_channel_anyway') as Json, SHARED);
    const [entry] = await waitFor(
      async () => {
        const list = await r.bot.watches.list({ channel: SHARED });
        return list.length > 0 && list;
      },
      { what: 'the watch in the channel', timeoutMs: 5_000, intervalMs: 20 },
    );
    // Set as a plain watch: a confirmation to share figures is made only where Slack says the
    // channel is shared, and one given for the channel as it was would outlive its sharing.
    expect(entry?.watch.sharedConfirmed).toBeUndefined();
  });

  it('can be set for the person instead, in their DM', async () => {
    const r = await sharedRig();
    const event = upcoming(r);
    const responseUrl = await command(r, `watch ${event.id}: sold out`, SHARED);
    const answer = await r.slack.waitFor(() =>
      responsesTo(r, responseUrl).find((call) => buttons(call.args).has('watch_shared_channel_for_me')),
    );
    await click(r, buttons(answer.args).get('watch_shared_channel_for_me') as Json, SHARED);
    const mine = await waitFor(
      async () => {
        const list = await r.bot.watches.list({ channel: 'U0EDITOR' });
        return list.length > 0 && list;
      },
      { what: "a watch in U0EDITOR's DM", timeoutMs: 5_000, intervalMs: 20 },
    );
    expect(mine).toHaveLength(1);
    expect(postsIn(r, SHARED)).toHaveLength(0);
  });

  it('from the watch form is not set there silently either', async () => {
    const r = await sharedRig();
    const event = upcoming(r);
    const submitted = await submitWatchForm(r, event.id, 'sold out', { channelId: SHARED, userId: 'U0ALICE' });
    expect(submitted.status).toBe(200);
    const said = await r.slack.waitFor(() =>
      r.slack.calls.find(
        (call) =>
          call.method === 'chat.postEphemeral' &&
          JSON.stringify(call.args).includes('shared with another organization'),
      ),
    );
    expect(said.args.user).toBe('U0ALICE');
    expect(buttons(said.args).has('watch_shared_channel_anyway')).toBe(true);
    expect(postsIn(r, SHARED)).toHaveLength(0);
    expect(await r.bot.watches.list({ channel: SHARED })).toHaveLength(0);
  });
});

describe('a channel watch whose channel is shared with another organization', () => {
  /** Runs scheduler turns until one checks an event or `kind` comes, moving the clock as needed. */
  async function turnsUntilChecked(r: BotRig, clock: ReturnType<typeof aheadClock>) {
    for (let i = 0; i < 40; i += 1) {
      const turn = await r.bot.watches.turn();
      if (turn.kind === 'checked') return turn;
      clock.advance(turn.kind === 'idle' && turn.nextAt !== undefined ? Math.max(0, turn.nextAt - clock.now()) : 1_000);
    }
    throw new Error('no check came');
  }

  /** The bot and the simulator on one clock the test moves ahead. */
  async function onOneClock() {
    const clock = aheadClock();
    const r = await startBot({
      compose: { clock },
      sim: { clock, reportLimit: { limit: 3, windowMs: 1_000 } },
      env: ENV,
    });
    rig = r;
    return { r, clock };
  }

  it('pauses at its next check when the channel was shared after it was set, and tells its owner, posting no figures there', async () => {
    const { r, clock } = await onOneClock();
    const event = upcoming(r);
    const asked = await command(r, `watch ${event.id}: sold out`, 'C0LATER');
    await r.slack.waitFor(() => postsIn(r, 'C0LATER').find((call) => call.args.metadata));
    // The answer comes once the watch's first check (the report it was set from) has edited its card.
    await answerTo(r, asked);
    // The channel is shared with a partner since; what was learnt of it has expired.
    r.slack.conversations.set('C0LATER', { is_shared: true, is_ext_shared: true });
    clock.advance(10 * 60_000);
    const editsBefore = r.slack.calls.filter((c) => c.method === 'chat.update' && c.args.channel === 'C0LATER').length;
    await turnsUntilChecked(r, clock);
    const [entry] = await r.bot.watches.list({ channel: 'C0LATER' });
    expect(entry?.watch.paused?.reason).toBe('shared_with_another_organization');
    // The card is edited to say it is paused, with no figures and no Chart button left on it.
    const edits = r.slack.calls.filter((c) => c.method === 'chat.update' && c.args.channel === 'C0LATER');
    expect(edits.slice(editsBefore)).toHaveLength(1);
    const paused = JSON.stringify(edits.at(-1)?.args.blocks);
    expect(paused).toContain('Paused');
    expect(paused).not.toMatch(/Tickets sold|Gross revenue|watch_chart/);
    const told = await r.slack.waitFor(() =>
      r.slack.calls.find((c) => c.method === 'chat.postMessage' && c.args.channel === 'U0EDITOR'),
    );
    expect(JSON.stringify(told.args)).toMatch(/shared with another organization/);
  });

  it('goes on where the person confirmed it there', async () => {
    const { r, clock } = await onOneClock();
    r.slack.conversations.set(SHARED, { is_shared: true, is_ext_shared: true });
    const event = upcoming(r);
    const responseUrl = await command(r, `watch ${event.id}: sold out`, SHARED);
    const answer = await r.slack.waitFor(() =>
      responsesTo(r, responseUrl).find((call) => buttons(call.args).has('watch_shared_channel_anyway')),
    );
    await click(r, buttons(answer.args).get('watch_shared_channel_anyway') as Json, SHARED);
    await r.slack.waitFor(() => postsIn(r, SHARED).find((call) => call.args.metadata));
    clock.advance(10 * 60_000);
    await turnsUntilChecked(r, clock);
    const [entry] = await r.bot.watches.list({ channel: SHARED });
    expect(entry?.watch.paused).toBeUndefined();
    expect(entry?.watch.sharedConfirmed).toBe(true);
  });
});
