import { afterEach, describe, expect, it } from 'vitest';
import { escapeText } from '../../src/render/mrkdwn.js';
import type { SimEvent } from '../../src/simulator/seed.js';
import { type BotRig, SIGNING_SECRET, startBot } from '../helpers/bot.js';
import { FETCHING, type Json, openHome, pickInWatchForm, submitWatchForm } from '../helpers/bot-actions.js';
import { fastWatches, watchCommand } from '../helpers/fast-watches.js';
import { commandBody, postSigned, viewSubmissionBody } from '../helpers/slack-requests.js';

let rig: BotRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const { clock, options: FAST, check } = fastWatches();

// `/events <text>` in C0001 unless said; its answer after any "fetching" notice, as JSON.
const command = watchCommand;

/** An upcoming published event with a capacity and at least one promo code. */
function watchable(r: BotRig): { event: SimEvent; code: string; quantity: number } {
  const now = Date.now();
  for (const event of r.sim.catalog.events) {
    if (event.status !== 'published' || event.startsAtMs < now + 86_400_000) continue;
    const promo = r.sim.catalog.promos.find((p) => p.eventId === event.id && p.quantity >= 50);
    if (promo) return { event, code: promo.code, quantity: promo.quantity };
  }
  throw new Error('no watchable event in the seed');
}

const posts = (r: BotRig) => r.slack.calls.filter((c) => c.method === 'chat.postMessage');
const updates = (r: BotRig) => r.slack.calls.filter((c) => c.method === 'chat.update');
const replies = (r: BotRig) => posts(r).filter((c) => c.args.thread_ts !== undefined);

describe('/events watch through the real Bolt app', () => {
  it('posts one card, edits it at each check, and alerts in its thread once per crossing, with hysteresis', async () => {
    rig = await startBot(FAST);
    const { event, code, quantity } = watchable(rig);
    const answer = await command(rig, `watch ${event.id}: sold >= 90%, ${code} left <= 5, sold out`);
    expect(answer).toContain('sold &gt;= 90%');
    const card = await rig.slack.waitFor(() => posts(rig as BotRig).find((c) => c.args.thread_ts === undefined));
    expect(card.args.channel).toBe('C0001');
    expect(JSON.stringify(card.args.metadata)).toContain('eventops_watch');
    const capacity = event.capacity;

    const half = Math.floor(capacity * 0.5);
    rig.sim.setFigures(event.id, { ticketsSold: half });
    await check(rig);
    expect(updates(rig).length).toBeGreaterThanOrEqual(1);
    // The counts, not the share: an odd capacity makes half of it 49.9%.
    const counts = `(${half.toLocaleString('en-US')} of ${capacity.toLocaleString('en-US')})`;
    expect(JSON.stringify(updates(rig).at(-1)?.args.blocks)).toContain(counts);
    expect(replies(rig)).toHaveLength(0);

    // Crossed: one alert, broadcast to the channel.
    rig.sim.setFigures(event.id, { ticketsSold: Math.floor(capacity * 0.95) });
    await check(rig);
    expect(replies(rig)).toHaveLength(1);
    const alert = replies(rig)[0];
    expect(String(alert?.args.reply_broadcast)).toBe('true');
    expect(String(alert?.args.text)).toMatch(/9[45](\.\d)?% sold/);
    const cardTs = alert?.args.thread_ts;

    // Still above, then a wobble just under the threshold and back: no second alert.
    await check(rig);
    rig.sim.setFigures(event.id, { ticketsSold: Math.floor(capacity * 0.89) });
    await check(rig);
    rig.sim.setFigures(event.id, { ticketsSold: Math.floor(capacity * 0.93) });
    await check(rig);
    expect(replies(rig)).toHaveLength(1);

    // Clearly cleared, then crossed again: a second alert.
    rig.sim.setFigures(event.id, { ticketsSold: Math.floor(capacity * 0.8) });
    await check(rig);
    rig.sim.setFigures(event.id, { ticketsSold: Math.floor(capacity * 0.92) });
    await check(rig);
    expect(replies(rig)).toHaveLength(2);

    // The promo code runs low.
    rig.sim.setFigures(event.id, { promos: { [code]: { redeemed: quantity - 3 } } });
    await check(rig);
    expect(replies(rig)).toHaveLength(3);
    expect(String(replies(rig)[2]?.args.text)).toContain(code);
    expect(replies(rig).every((reply) => reply.args.thread_ts === cardTs)).toBe(true);
    // One card only: every other post is a reply in its thread.
    expect(posts(rig).filter((c) => c.args.thread_ts === undefined)).toHaveLength(1);
  });

  it('counts a report a person fetched as a check, and spends no report call of its own for it', async () => {
    // A minute between checks: the person's report is the check, whatever the machine's pace.
    rig = await startBot({ ...FAST, env: { ...FAST.env, WATCH_MIN_INTERVAL: '1m' } });
    const { event } = watchable(rig);
    await command(rig, `watch ${event.id}: sold out`);
    const reportsBefore = rig.sim.stats().admittedReports;
    const updatesBefore = updates(rig).length;
    const asked = await postSigned(
      rig.url,
      SIGNING_SECRET,
      commandBody({
        text: `report ${event.id}`,
        response_url: rig.slack.responseUrl(),
        user_id: 'U0ALICE',
        channel_id: 'C0001',
      }),
    );
    expect(asked.status).toBe(200);
    // The person's report lands, and the watch's card is edited with its figures.
    await rig.slack.waitFor(() => updates(rig as BotRig).length > updatesBefore || undefined);
    expect(rig.sim.stats().admittedReports).toBe(reportsBefore + 1);
    const turn = await rig.bot.watches.turn();
    // Checked a moment ago by the person's report: nothing is due.
    expect(turn.kind).toBe('idle');
    expect(rig.sim.stats().admittedReports).toBe(reportsBefore + 1);
  });

  it('refuses a condition the latest report cannot check, and names what it lacks', async () => {
    rig = await startBot(FAST);
    const { event } = watchable(rig);
    await command(rig, `watch ${event.id}: sold out`);
    await check(rig);
    const answer = await command(rig, `watch ${event.id}: NOSUCHCODE left <= 3`);
    expect(answer).toContain('cannot be checked');
    expect(answer).toContain('NOSUCHCODE');
    const typo = await command(rig, `watch ${event.id}: sold about 90`);
    expect(typo).toContain('is not a condition I know');
  });

  it('lists the watches here, and ends one on unwatch: the card says who ended it', async () => {
    rig = await startBot(FAST);
    const { event } = watchable(rig);
    await command(rig, `watch ${event.id}: sold >= 90%`);
    const list = await command(rig, 'watches');
    expect(list).toContain('sold &gt;= 90%');
    expect(list).toContain('U0EDITOR');
    const gone = await command(rig, `unwatch ${event.id}`, 'U0OTHER');
    expect(gone).toContain('Stopped watching');
    const last = updates(rig).at(-1);
    expect(JSON.stringify(last?.args.blocks)).toContain('U0OTHER');
    expect(await command(rig, 'watches')).toContain('Nothing is watched here');
    expect((await rig.bot.watches.turn()).kind).toBe('idle');
  });

  it('pauses a watch whose channel refuses posts and tells the person who set it up', async () => {
    rig = await startBot(FAST);
    const { event } = watchable(rig);
    rig.slack.failNext('chat.postMessage', 'not_in_channel');
    const answer = await command(rig, `watch ${event.id}: sold out`);
    expect(answer).toContain('paused');
    const dm = await rig.slack.waitFor(() => posts(rig as BotRig).find((c) => c.args.channel === 'U0EDITOR'));
    expect(JSON.stringify(dm.args)).toContain('/invite');
    expect((await rig.bot.watches.turn()).kind).toBe('idle');
  });

  it('keeps its card across a restart: the next check edits the same message', async () => {
    rig = await startBot(FAST);
    const { event } = watchable(rig);
    await command(rig, `watch ${event.id}: sold out`);
    const card = await rig.slack.waitFor(() => posts(rig as BotRig).find((c) => c.args.thread_ts === undefined));
    await rig.restart();
    await check(rig);
    expect(posts(rig).filter((c) => c.args.thread_ts === undefined)).toHaveLength(1);
    expect(updates(rig).length).toBeGreaterThanOrEqual(1);
    expect(card).toBeDefined();
  });

  it('watches for one person in their DM with --me', async () => {
    rig = await startBot(FAST);
    const { event } = watchable(rig);
    await command(rig, `watch ${event.id}: sold out --me`, 'U0ALICE');
    const card = await rig.slack.waitFor(() => posts(rig as BotRig).find((c) => c.args.thread_ts === undefined));
    expect(card.args.channel).toBe('U0ALICE');
    // Edits name the DM's own id (Slack refuses chat.update on a user id).
    await check(rig);
    expect(updates(rig).at(-1)?.args.channel).toBe('D0ALICE');
    expect(await command(rig, 'watches --me', 'U0ALICE')).toContain('sold out');
    expect(await command(rig, 'watches', 'U0ALICE')).toContain('Nothing is watched here');
  });

  it('asks with a form when no event is named: the event picked redraws it with what its report holds', async () => {
    rig = await startBot(FAST);
    const { event, code } = watchable(rig);
    await command(rig, `watch ${event.id}: sold out`);
    await check(rig);
    await rig.bot.catalog.snapshot();
    const opened = await postSigned(
      rig.url,
      SIGNING_SECRET,
      commandBody({ text: 'watch', response_url: rig.slack.responseUrl(), user_id: 'U0ALICE', channel_id: 'C0002' }),
    );
    expect(opened.status).toBe(200);
    const open = await rig.slack.waitFor(() => rig?.slack.calls.find((c) => c.method === 'views.open'));
    const view = open.args.view as { callback_id: string; private_metadata: string };
    expect(view.callback_id).toBe('watch_modal');
    // The person picks the event: the form comes back with the conditions its report allows.
    await pickInWatchForm(rig, event.id, view.private_metadata);
    const update = await rig.slack.waitFor(() => rig?.slack.calls.find((c) => c.method === 'views.update'));
    const redrawn = JSON.stringify(update.args.view);
    expect(redrawn).toContain('sold &gt;= 90%');
    expect(redrawn).toContain(`${code} left`);
    // Submitted with one offered condition ticked and one typed, only for the person.
    const submitted = await postSigned(
      rig.url,
      SIGNING_SECRET,
      viewSubmissionBody({
        callbackId: 'watch_modal',
        privateMetadata: view.private_metadata,
        userId: 'U0ALICE',
        values: {
          event: { event_picker: { type: 'external_select', selected_option: { value: event.id } } },
          watch_offered: { watch_offered: { type: 'checkboxes', selected_options: [{ value: 'sold >= 90%' }] } },
          watch_conditions: { watch_conditions: { type: 'plain_text_input', value: '+25 sold' } },
          watch_personal: { watch_personal: { type: 'checkboxes', selected_options: [{ value: 'personal' }] } },
        },
      }),
    );
    expect(submitted.status).toBe(200);
    const card = await rig.slack.waitFor(() =>
      posts(rig as BotRig).find(
        (c) => c.args.channel === 'U0ALICE' && c.args.thread_ts === undefined && c.args.metadata,
      ),
    );
    expect(JSON.stringify(card.args.blocks)).toContain('+25 sold');
    const mine = await rig.bot.watches.list({ channel: 'U0ALICE' });
    expect(mine[0]?.watch.conditions.map((c) => c.key)).toEqual(['sold >= 90%', '+25 sold since the last check']);
  });

  it('reads the report of an event nobody watches in the person’s turn: the form offers what it holds, the command refuses what it lacks', async () => {
    rig = await startBot(FAST);
    const { event, code } = watchable(rig);
    await rig.bot.catalog.snapshot();
    const reportsBefore = rig.sim.stats().admittedReports;
    await pickInWatchForm(rig, event.id, JSON.stringify({ channelId: 'C0002' }));
    const redraws = () => (rig as BotRig).slack.calls.filter((c) => c.method === 'views.update');
    await rig.slack.waitFor(() => redraws()[1]);
    // First the form says it is fetching the report; then it offers what the report holds.
    expect(JSON.stringify(redraws()[0]?.args.view)).toContain('Fetching the event');
    const offered = JSON.stringify(redraws()[1]?.args.view);
    expect(offered).toContain('sold &gt;= 90%');
    expect(offered).toContain(`${code} left`);
    expect(rig.sim.stats().admittedReports).toBe(reportsBefore + 1);

    // The command reads the same report from the event's record (read a moment ago: no call,
    // though this rig keeps no report cache), and refuses a promo code the report does not name,
    // setting nothing.
    const refused = await command(rig, `watch ${event.id}: NOSUCH left <= 2`, 'U0ALICE', 'C0003');
    expect(refused).toContain('NOSUCH');
    expect(await rig.bot.watches.list({ channel: 'C0003' })).toHaveLength(0);
    expect(rig.sim.stats().admittedReports).toBe(reportsBefore + 1);
    // A watch set by command starts with the figures its conditions were read from: one check, no call of its own.
    const set = await command(rig, `watch ${event.id}: sold out`, 'U0ALICE', 'C0003');
    expect(set).toContain('sold out');
    expect((await rig.bot.watches.lastCheck(event.id))?.checks).toBe(1);

    // Another event, nothing at hand: read in the person's turn, and the answer takes the place of
    // the "fetching" notice, so none is left behind (issue 42).
    const other = rig.sim.catalog.events.find(
      (e) => e.status === 'published' && e.id !== event.id && e.startsAtMs > Date.now() + 86_400_000,
    );
    if (!other) throw new Error('no second upcoming event');
    expect(await command(rig, `watch ${other.id}: sold out`, 'U0ALICE', 'C0003')).toContain('sold out');
    const fetching = rig.slack.responses.filter((c) => String(c.args.text).startsWith(FETCHING));
    expect(fetching).toHaveLength(1);
    const answers = rig.slack.responses.filter((c) => c.method === fetching[0]?.method);
    expect(answers).toHaveLength(2);
    expect(answers[1]?.args.replace_original).toBe(true);
  });

  it('lists my watches on App Home, where they are and what they watch, and not another person’s', async () => {
    rig = await startBot(FAST);
    const { event } = watchable(rig);
    await command(rig, `watch ${event.id}: sold out`, 'U0ALICE', 'C0001');
    await command(rig, `watch ${event.id}: sold >= 90%`, 'U0BOB', 'C0002');
    const home = await openHome(rig, 'U0ALICE');
    const section = home.slice(home.indexOf('Your watches'));
    // The name as the view escapes it (the seed's names include hostile ones).
    expect(section).toContain(
      JSON.stringify(String(escapeText(event.name)))
        .slice(1, -1)
        .slice(0, 30),
    );
    expect(section).toContain('<#C0001>');
    expect(section).toContain('sold out');
    expect(section).not.toContain('<#C0002>');
  });

  it('reads the report when the form is submitted with none at hand, and brings the form back as typed when it refuses', async () => {
    rig = await startBot(FAST);
    const { event } = watchable(rig);
    await rig.bot.catalog.snapshot();
    const submit = (value: string) =>
      submitWatchForm(rig as BotRig, event.id, value, { channelId: 'C0004', userId: 'U0ALICE' });
    const said = () =>
      (rig as BotRig).slack.calls
        .filter((c) => c.method === 'chat.postEphemeral' && c.args.channel === 'C0004')
        .map((c) => String(c.args.text));
    const formUpdates = () =>
      (rig as BotRig).slack.calls.filter((c) => c.method === 'views.update').map((c) => c.args.view as Json);
    // This rig keeps no report cache: nothing is at hand, so the form says it reads the report, and stays open.
    const refused = await submit('NOSUCH left <= 2');
    expect(refused.status).toBe(200);
    expect(refused.text).toContain('"response_action":"update"');
    expect(refused.text).toContain("Fetching the event's report");
    // The report names no NOSUCH: the form is back, the conditions as typed and the problem under them.
    const back = await rig.slack.waitFor(() => formUpdates().find((view) => view.callback_id === 'watch_modal'));
    const blocks = JSON.stringify(back.blocks);
    expect(blocks).toContain('"initial_value":"NOSUCH left <= 2"');
    expect(blocks).toContain('NOSUCH');
    expect(blocks).toContain('The watch was not set.');
    expect(said().some((text) => text.includes('was not set'))).toBe(false);
    // No "fetching" notice is left in the conversation either (issue 42): the form said it.
    expect(said().some((text) => text.includes('Fetching'))).toBe(false);
    expect(await rig.bot.watches.list({ channel: 'C0004' })).toHaveLength(0);

    expect((await submit('sold >= 90%')).status).toBe(200);
    await rig.slack.waitFor(() => said().find((text) => text.startsWith('Watching ')));
    expect(await rig.bot.watches.list({ channel: 'C0004' })).toHaveLength(1);
    expect((await rig.bot.watches.lastCheck(event.id))?.checks).toBe(1);
  });

  it('refuses in the form a condition the report cannot check, and sets nothing', async () => {
    rig = await startBot(FAST);
    const { event } = watchable(rig);
    await command(rig, `watch ${event.id}: sold out`);
    await check(rig);
    await rig.bot.catalog.snapshot();
    const answer = await submitWatchForm(rig, event.id, 'NOSUCH left <= 2', { channelId: 'C0002' });
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('response_action');
    expect(answer.text).toContain('cannot be checked');
    expect(await rig.bot.watches.list({ channel: 'C0002' })).toHaveLength(0);
  });

  it('checks on its own once the scheduler runs, on SQLite, and the store stays free for everything else', async () => {
    rig = await startBot(FAST);
    const { event } = watchable(rig);
    await command(rig, `watch ${event.id}: sold out`);
    const updatesBefore = updates(rig).length;
    // The check falls due (the minimum interval, 1 s) as the scheduler starts.
    clock.advance(1_000);
    rig.bot.watchScheduler.start();
    try {
      await rig.slack.waitFor(() => updates(rig as BotRig).length > updatesBefore || undefined);
      // A store write after the scheduler's check (its turn must not hold the store).
      expect(await command(rig, 'digest on 07:30 UTC')).toContain('Daily digest on');
      expect(await command(rig, 'watches')).toContain('sold out');
    } finally {
      rig.bot.watchScheduler.stop();
    }
  });

  it('holds at most 10 conditions a watch, however many times people add to it, and changes nothing past that', async () => {
    rig = await startBot(FAST);
    const { event } = watchable(rig);
    const first = Array.from({ length: 8 }, (_, i) => `ticketsSold >= ${i + 1}`).join(', ');
    expect(await command(rig, `watch ${event.id}: ${first}`)).toContain('ticketsSold');
    const more = await command(
      rig,
      `watch ${event.id}: ticketsSold >= 100, ticketsSold >= 200, ticketsSold >= 300`,
      'U0OTHER',
    );
    expect(more).toContain('at most 10 conditions');
    const [watch] = await rig.bot.watches.list({ channel: 'C0001' });
    expect(watch?.watch.conditions).toHaveLength(8);
  });
});

describe('/events watch: the words are checked before a report is spent', () => {
  it('refuses a misspelt condition, or eleven of them, with no report call and no "fetching" notice', async () => {
    rig = await startBot(FAST);
    const { event } = watchable(rig);
    const before = rig.sim.stats().admittedReports;
    const typo = await command(rig, `watch ${event.id}: soldd >= 90%`);
    expect(typo).toContain('is not a condition I know');
    const eleven = Array.from({ length: 11 }, (_, i) => `ticketsSold >= ${i + 1}`).join(', ');
    expect(await command(rig, `watch ${event.id}: ${eleven}`)).toContain('at most 10 conditions');
    expect(rig.sim.stats().admittedReports).toBe(before);
    expect(rig.slack.responses.some((call) => String(call.args.text).startsWith(FETCHING))).toBe(false);
    expect(await rig.bot.watches.list({ channel: 'C0001' })).toHaveLength(0);
  });

  it('the form shows a misspelt condition as its field error with no report at hand and no report call', async () => {
    rig = await startBot(FAST);
    const { event } = watchable(rig);
    await rig.bot.catalog.snapshot();
    const before = rig.sim.stats().admittedReports;
    const answer = await submitWatchForm(rig, event.id, 'soldd >= 90%', { channelId: 'C0002' });
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('response_action');
    expect(answer.text).toContain('is not a condition I know');
    expect(rig.sim.stats().admittedReports).toBe(before);
    expect(await rig.bot.watches.list({ channel: 'C0002' })).toHaveLength(0);
  });
});

describe('/events watch: departed people, all-day events, how often', () => {
  it('pauses a personal watch at once when its owner was deactivated, and checks it no more', async () => {
    rig = await startBot(FAST);
    const { event } = watchable(rig);
    await command(rig, `watch ${event.id}: sold out --me`, 'U0LEAVER');
    await rig.slack.waitFor(() => posts(rig as BotRig).find((c) => c.args.channel === 'U0LEAVER'));
    // The card's edit: Slack says the person is deactivated.
    rig.slack.failNext('chat.update', 'user_disabled', 5);
    await check(rig);
    const [entry] = await rig.bot.watches.list({ channel: 'U0LEAVER' });
    expect(entry?.watch.paused?.reason).toBe('user_disabled');
    const reportsBefore = rig.sim.stats().admittedReports;
    clock.advance(60_000);
    expect((await rig.bot.watches.turn()).kind).toBe('idle');
    expect(rig.sim.stats().admittedReports).toBe(reportsBefore);
  });

  it('an all-day event’s card says the date it ends on, not a time in the reader’s zone', async () => {
    rig = await startBot(FAST);
    const now = Date.now();
    const allDay = rig.sim.catalog.events.find(
      (e) => e.status === 'published' && /^\d{4}-\d{2}-\d{2}$/.test(e.endDate) && e.startsAtMs > now + 86_400_000,
    );
    if (!allDay) throw new Error('no all-day event in the seed');
    await command(rig, `watch ${allDay.id}: sold out`);
    const card = await rig.slack.waitFor(() => posts(rig as BotRig).find((c) => c.args.thread_ts === undefined));
    const [year, month, day] = allDay.endDate.split('-').map(Number) as [number, number, number];
    const shown = new Intl.DateTimeFormat('en-US', {
      weekday: 'short',
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      timeZone: 'UTC',
    }).format(Date.UTC(year, month - 1, day));
    const blocks = JSON.stringify(card.args.blocks);
    expect(blocks).toContain(`until the event ends on ${shown}`);
  });

  it('says how often each event is checked now and why: how many events are watched in all', async () => {
    rig = await startBot({ ...FAST, env: { ...FAST.env, WATCH_MIN_INTERVAL: '2s' } });
    const events = rig.sim.catalog.events.filter(
      (e) => e.status === 'published' && e.startsAtMs > Date.now() + 86_400_000,
    );
    for (const event of events.slice(0, 7)) await command(rig, `watch ${event.id}: sold out`, 'U0EDITOR', 'C0OTHER');
    const list = await command(rig, 'watches', 'U0EDITOR', 'C0OTHER');
    // 7 events over 3 slots a 1 s window: every 3 windows, more than the 2 s floor.
    expect(list).toContain('7 events are watched across the workspace');
    expect(list).toContain('sharing 3 reports');
  });
});

describe('/events watch form: an event that has ended', () => {
  it('is refused as the command refuses it, with no report call and nothing set', async () => {
    rig = await startBot(FAST);
    const ended = rig.sim.catalog.events.find(
      (e) => e.status === 'published' && e.startsAtMs < Date.now() - 3 * 86_400_000,
    );
    if (!ended) throw new Error('no ended event in the seed');
    await rig.bot.catalog.snapshot();
    const before = rig.sim.stats().admittedReports;
    const answer = await submitWatchForm(rig, ended.id, 'sold out', { channelId: 'C0002' });
    expect(answer.text).toContain('response_action');
    expect(answer.text).toContain('has ended');
    expect(rig.sim.stats().admittedReports).toBe(before);
    expect(await rig.bot.watches.list({ channel: 'C0002' })).toHaveLength(0);
  });

  it('a card Slack did not take just now: the answer says the watch is set and its card follows, not to try again', async () => {
    rig = await startBot(FAST);
    const { event } = watchable(rig);
    rig.slack.failNext('chat.postMessage', 'internal_error');
    const answer = await command(rig, `watch ${event.id}: sold out`);
    expect(answer).toContain('the card follows with the next check');
    expect(answer).not.toContain('try again');
    expect(await rig.bot.watches.list({ channel: 'C0001' })).toHaveLength(1);
    clock.advance(120_000);
    await check(rig);
    await rig.slack.waitFor(() =>
      posts(rig as BotRig).find((c) => c.args.thread_ts === undefined && c.args.channel === 'C0001'),
    );
  });
});

describe('/events watch: one person’s share', () => {
  it('refuses a person’s watch past WATCHES_PER_PERSON, saying why, and sets nothing', async () => {
    rig = await startBot({ ...FAST, env: { ...FAST.env, WATCHES_PER_PERSON: '1' } });
    const events = rig.sim.catalog.events.filter(
      (e) => e.status === 'published' && e.startsAtMs > Date.now() + 86_400_000,
    );
    const [first, second] = events as [SimEvent, SimEvent];
    expect(await command(rig, `watch ${first.id}: sold out`, 'U0ALICE')).toContain('Watching');
    const reportsBefore = rig.sim.stats().admittedReports;
    const refused = await command(rig, `watch ${second.id}: sold out`, 'U0ALICE', 'C0002');
    expect(refused).toContain('as many as one person may');
    // Refused before the event's report is read for its conditions.
    expect(rig.sim.stats().admittedReports).toBe(reportsBefore);
    expect(await rig.bot.watches.list({ channel: 'C0002' })).toHaveLength(0);
    // Someone else still may.
    expect(await command(rig, `watch ${second.id}: sold out`, 'U0BOB', 'C0002')).toContain('Watching');
  });
});

describe('/events watch on a threshold already crossed', () => {
  it('says so in the confirmation and on the card, posts no alert for it, and alerts once it clears and crosses again', async () => {
    rig = await startBot(FAST);
    const { event } = watchable(rig);
    const capacity = event.capacity;
    rig.sim.setFigures(event.id, { ticketsSold: Math.floor(capacity * 0.95) });
    const answer = await command(rig, `watch ${event.id}: sold >= 90%`);
    expect(answer).toContain('Already crossed when the watch was set: `sold &gt;= 90%`');
    await rig.slack.waitFor(() => posts(rig as BotRig).find((c) => c.args.thread_ts === undefined));
    await check(rig);
    // No channel alert for a crossing that happened before the watch existed.
    expect(replies(rig)).toHaveLength(0);
    expect(JSON.stringify(updates(rig).at(-1)?.args.blocks)).toContain('already crossed when the watch was set');

    rig.sim.setFigures(event.id, { ticketsSold: Math.floor(capacity * 0.8) });
    await check(rig);
    rig.sim.setFigures(event.id, { ticketsSold: Math.floor(capacity * 0.95) });
    await check(rig);
    expect(replies(rig)).toHaveLength(1);
  });
});
