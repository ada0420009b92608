import { afterEach, describe, expect, it } from 'vitest';
import type { SimEvent } from '../../src/simulator/seed.js';
import { type BotRig, startBot } from '../helpers/bot.js';
import { answerTo, blocksText, click, type Json } from '../helpers/bot-actions.js';
import { fastWatches, watchCommand } from '../helpers/fast-watches.js';
import { waitFor } from '../helpers/wait-for.js';

let rig: BotRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const { clock, options: FAST, check } = fastWatches();
const HOUR = 3_600_000;

// `/events <text>` in C0001 unless said; its answer after any "fetching" notice, as JSON.
const command = watchCommand;

/** Clicks a button of a message the bot posted, as `user`; the private answer, as JSON. */
async function clickOn(r: BotRig, message: Json, actionId: string, user: string) {
  const value = buttonOf(message, actionId);
  const { responseUrl } = await click(r, actionId, value, user, {
    channelId: String(message.channel),
    messageTs: String(message.thread_ts ?? '1.2'),
  });
  return JSON.stringify(await answerTo(r, responseUrl));
}

function buttonOf(message: Json, actionId: string): string {
  for (const block of (message.blocks ?? []) as Json[])
    for (const element of (block.elements ?? []) as Json[])
      if (element.action_id === actionId) return String(element.value);
  throw new Error(`no ${actionId} button`);
}

/** An upcoming published event with a capacity and a promo code of at least 50. */
function watchable(r: BotRig): { event: SimEvent; code: string } {
  const now = clock.now();
  for (const event of r.sim.catalog.events) {
    if (event.status !== 'published' || event.startsAtMs < now + 3 * 86_400_000) continue;
    const promo = r.sim.catalog.promos.find((p) => p.eventId === event.id && p.quantity >= 50);
    if (promo) return { event, code: promo.code };
  }
  throw new Error('no watchable event in the seed');
}

const posts = (r: BotRig, channel = 'C0001') =>
  r.slack.calls.filter((c) => c.method === 'chat.postMessage' && c.args.channel === channel);
const replies = (r: BotRig, channel = 'C0001') => posts(r, channel).filter((c) => c.args.thread_ts !== undefined);
const alerts = (r: BotRig, channel = 'C0001') =>
  replies(r, channel).filter((c) => JSON.stringify(c.args.metadata ?? {}).includes('"alert"'));

/** Sets sold to `share` of capacity and checks the event. */
async function soldAt(r: BotRig, event: SimEvent, sold: number) {
  r.sim.setFigures(event.id, { ticketsSold: sold });
  await check(r);
}

describe('quiet alerts through the real Bolt app', () => {
  it('a snoozed watch sends nothing until the snooze ends, then alerts only on figures from after it', async () => {
    rig = await startBot(FAST);
    const r = rig;
    const { event } = watchable(r);
    const capacity = event.capacity;
    r.sim.setFigures(event.id, { ticketsSold: Math.floor(capacity * 0.2) });
    await command(r, `watch ${event.id}: sold >= 50%, +1 sold`);
    await check(r);
    await soldAt(r, event, Math.floor(capacity * 0.2) + 5);
    // The jump alerts, with its snooze buttons.
    const jump = await r.slack.waitFor(() => alerts(r)[0]);
    expect(jump.args.text).toMatch(/5 tickets sold since the last check/);

    await check(r); // nothing sold since: the jump condition is armed again
    // Someone the watch does not speak for may not snooze it for everyone.
    expect(await clickOn(r, jump.args, 'watch_snooze_1h', 'U0STRANGER')).toMatch(/only who set it up/);
    const owner = await clickOn(r, jump.args, 'watch_snooze_1h', 'U0EDITOR');
    expect(owner).toMatch(/snoozed until about/);

    // Within the hour: a threshold crossed and a jump, neither alerted.
    clock.advance(60_000);
    await soldAt(r, event, Math.floor(capacity * 0.6));
    clock.advance(10 * 60_000);
    await soldAt(r, event, Math.floor(capacity * 0.62));
    expect(alerts(r)).toHaveLength(1);

    // After the hour: the threshold alerts on the figures read now; the jump from the last check
    // in the snooze (10% of capacity and more) is no baseline, so no jump is alerted.
    clock.advance(HOUR);
    const after = Math.floor(capacity * 0.7);
    await soldAt(r, event, after);
    const shareAlert = await r.slack.waitFor(() => alerts(r)[1]);
    expect(shareAlert.args.text).toMatch(/is (69\.9|70)% sold/);
    await check(r);
    expect(alerts(r)).toHaveLength(2);
    // The next jump compares with a check made after the snooze.
    await soldAt(r, event, after + 3);
    const next = await r.slack.waitFor(() => alerts(r)[2]);
    expect(next.args.text).toMatch(/3 tickets sold since the last check/);
  });

  it('a snoozed card says one state: its conditions read the check its figures show (issue 42)', async () => {
    rig = await startBot(FAST);
    const r = rig;
    const { event } = watchable(r);
    const capacity = event.capacity;
    r.sim.setFigures(event.id, { ticketsSold: Math.floor(capacity * 0.5) });
    await command(r, `watch ${event.id}: sold >= 95%, +1 sold`);
    await check(r);
    await soldAt(r, event, Math.floor(capacity * 0.5) + 3);
    const jump = await r.slack.waitFor(() => alerts(r)[0]);
    expect(await clickOn(r, jump.args, 'watch_snooze_1h', 'U0EDITOR')).toMatch(/snoozed until about/);

    // Within the snooze the share crosses 95%: no alert, and the card's header and its condition
    // line say the same share, read in the same check.
    clock.advance(60_000);
    const since = r.slack.calls.length;
    const sold = Math.floor(capacity * 0.985);
    await soldAt(r, event, sold);
    const share = `${Math.round((sold / capacity) * 1000) / 10}% sold`;
    const card = await r.slack.waitFor(() =>
      r.slack.calls.slice(since).find((c) => c.method === 'chat.update' && blocksText(c.args).includes(`${share} (`)),
    );
    expect(alerts(r)).toHaveLength(1);
    const lines = blocksText(card.args);
    expect(lines).toContain(`\`sold &gt;= 95%\`: watching · now ${share}`);
    expect(lines).not.toMatch(/now 50(\.\d)?% sold/);
    // Movement is measured from the snooze's end: no figure for it on the card meanwhile.
    expect(lines).toContain('`+1 sold since the last check`: :white_check_mark: crossed"');
  });

  it('"until the next threshold" holds movement alerts until a threshold alerts', async () => {
    rig = await startBot(FAST);
    const r = rig;
    const { event } = watchable(r);
    const capacity = event.capacity;
    r.sim.setFigures(event.id, { ticketsSold: 10 });
    await command(r, `watch ${event.id}: sold >= 50%, +1 sold`);
    await check(r);
    await soldAt(r, event, 12);
    const jump = await r.slack.waitFor(() => alerts(r)[0]);
    expect(await clickOn(r, jump.args, 'watch_snooze_threshold', 'U0EDITOR')).toMatch(/until the next threshold/);
    // The card says so.
    await r.slack.waitFor(() =>
      r.slack.calls.find(
        (c) => c.method === 'chat.update' && /Alerts snoozed until the next threshold/.test(blocksText(c.args)),
      ),
    );
    await check(r);
    await soldAt(r, event, 20);
    expect(alerts(r)).toHaveLength(1);
    await soldAt(r, event, Math.floor(capacity * 0.6));
    await r.slack.waitFor(() => alerts(r)[1]);
    expect(alerts(r).map((c) => String(c.args.text))).toEqual([
      expect.stringMatching(/since the last check/),
      expect.stringMatching(/% sold/),
    ]);
    // The threshold ended the snooze: jumps alert again, measured from after it.
    await check(r);
    await soldAt(r, event, Math.floor(capacity * 0.6) + 4);
    const again = await r.slack.waitFor(() => alerts(r)[2]);
    expect(again.args.text).toMatch(/4 tickets sold since the last check/);
  });

  it('mute for me stops mentioning that person; the others are still mentioned', async () => {
    rig = await startBot(FAST);
    const r = rig;
    const { event } = watchable(r);
    r.sim.setFigures(event.id, { ticketsSold: 10 });
    await command(r, `watch ${event.id}: +1 sold`, 'U0EDITOR');
    await command(r, `watch ${event.id}: +2 sold`, 'U0ALICE');
    await check(r);
    await soldAt(r, event, 13);
    await r.slack.waitFor(() => (alerts(r).length === 2 ? true : undefined));
    const both = alerts(r).find((c) => /\+2 sold/.test(blocksText(c.args)));
    if (!both) throw new Error('no alert of +2 sold');
    expect(blocksText(both.args)).toContain('<@U0EDITOR>');
    expect(blocksText(both.args)).toContain('<@U0ALICE>');

    expect(await clickOn(r, both.args, 'watch_mute', 'U0EDITOR')).toMatch(/no longer mentions or messages you/);
    await check(r); // nothing sold: both conditions clear
    await soldAt(r, event, 20);
    await r.slack.waitFor(() => (alerts(r).length === 4 ? true : undefined));
    for (const alert of alerts(r).slice(2)) {
      expect(blocksText(alert.args)).not.toContain('<@U0EDITOR>');
    }
    const alice = alerts(r)
      .slice(2)
      .find((c) => /\+2 sold/.test(blocksText(c.args)));
    expect(blocksText(alice?.args ?? {})).toContain('<@U0ALICE>');
    // Clicked again: mentioned again.
    expect(await clickOn(r, both.args, 'watch_mute', 'U0EDITOR')).toMatch(/mentions you again/);
  });

  it("a guest cannot make a channel's alerts thread-only: that is for those who may watch there", async () => {
    rig = await startBot(FAST);
    const r = rig;
    r.slack.people.set('U0GUEST', { is_restricted: true });
    expect(await command(r, 'watches thread-only on', 'U0GUEST')).toContain('not shown to guests');
    expect(await r.bot.watches.quieting?.threadOnly('C0001')).toBe(false);
    expect(await command(r, 'watches thread-only on')).toMatch(/stay in each card/);
    expect(await r.bot.watches.quieting?.threadOnly('C0001')).toBe(true);
  });

  it('a thread-only channel gets nothing outside the threads but a sell-out and the end', async () => {
    rig = await startBot(FAST);
    const r = rig;
    const { event } = watchable(r);
    const capacity = event.capacity;
    expect(await command(r, 'watches thread-only on')).toMatch(/stay in each card/);
    r.sim.setFigures(event.id, { ticketsSold: Math.floor(capacity * 0.2) });
    await command(r, `watch ${event.id}: sold >= 50%, +1 sold, sold out`);
    expect(await command(r, 'watches')).toMatch(/Alerts stay in each card's thread \(thread-only\)/);
    await check(r);
    await soldAt(r, event, Math.floor(capacity * 0.6));
    await r.slack.waitFor(() => (alerts(r).length === 2 ? true : undefined));
    await soldAt(r, event, capacity);
    const soldOut = await r.slack.waitFor(() => alerts(r).find((c) => /sold out/.test(String(c.args.text))));
    // Nothing but the card itself outside a thread, and no broadcast but the sell-out.
    expect(posts(r).filter((c) => c.args.thread_ts === undefined)).toHaveLength(1);
    const broadcast = replies(r).filter((c) => String(c.args.reply_broadcast) === 'true');
    expect(broadcast).toEqual([soldOut]);

    // The event ends: its summary is broadcast too.
    const watch = (await r.bot.watches.find({ channel: 'C0001' }))[0];
    clock.advance(Math.max(0, (watch?.endsAtMs ?? clock.now()) - clock.now()) + 60_000);
    await waitFor(
      async () => {
        await r.bot.watches.turn();
        return (await r.bot.watches.find({ channel: 'C0001' })).length === 0;
      },
      { what: 'the end of the watch', timeoutMs: 10_000 },
    );
    const summary = replies(r).find((c) => JSON.stringify(c.args.metadata ?? {}).includes('"summary"'));
    expect(String(summary?.args.reply_broadcast)).toBe('true');

    // A person's DM has no channel to keep quiet.
    expect(await command(r, 'watches thread-only on --me')).toMatch(/without --me/);
  });

  it('--except leaves out a kind of condition, or the promo codes named so', async () => {
    rig = await startBot(FAST);
    const r = rig;
    const { event, code } = watchable(r);
    const byKind = await command(r, `watch ${event.id} --except promo`);
    expect(byKind).toMatch(/Left out/);
    const watch = (await r.bot.watches.find({ channel: 'C0001' }))[0];
    expect(watch?.conditions.map((c) => c.condition.kind).sort()).toEqual(['sold-out', 'sold-share']);

    const byName = await command(
      r,
      `watch ${event.id}: sold out, ${code} left <= 5 --except ${code.toLowerCase()}`,
      'U0EDITOR',
      'C0002',
    );
    expect(byName).toContain(`Left out`);
    const other = (await r.bot.watches.find({ channel: 'C0002' }))[0];
    expect(other?.conditions.map((c) => c.key)).toEqual(['sold out']);

    expect(await command(r, `watch ${event.id} --except`, 'U0EDITOR', 'C0003')).toMatch(/needs words/);
    expect(await command(r, `watch ${event.id}: sold out --except sold`, 'U0EDITOR', 'C0003')).toMatch(
      /left out every condition \(sold out\)/,
    );
    expect(await r.bot.watches.find({ channel: 'C0003' })).toEqual([]);
  });
});
