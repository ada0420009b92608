import { afterEach, describe, expect, it } from 'vitest';
import { type BotRig, startBot } from '../helpers/bot.js';
import { click, command, reportCalls, watchDirectly } from '../helpers/bot-actions.js';
import { aheadClock } from '../helpers/clocks.js';

let rig: BotRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/**
 * The bot and the simulator on one clock the test moves ahead, with report windows of 1 s, checks
 * at most every second and no report cache: every read is a report call.
 */
async function onOneClock() {
  const clock = aheadClock();
  const r = await startBot({
    compose: { clock },
    sim: { clock, reportLimit: { limit: 3, windowMs: 1_000 } },
    env: { TICKETING_REPORT_LIMIT: '3/1s', WATCH_MIN_INTERVAL: '1s', TICKETING_REPORT_CACHE_TTL: '0' },
  });
  rig = r;
  return { r, clock };
}

describe('the sales history', () => {
  it('gains a point from every report read (a person’s, a watch’s check), and makes no report call of its own', async () => {
    const { r, clock } = await onOneClock();
    const event = r.sim.catalog.events.find((e) => e.status === 'published' && e.startsAtMs > Date.now() + 86_400_000);
    if (!event) throw new Error('no upcoming event');
    await command(r, `report ${event.id}`);
    await expect.poll(async () => (await r.bot.history.read(event.id)).points.length).toBe(1);
    r.sim.setFigures(event.id, { ticketsSold: 42 });
    await command(r, `watch ${event.id}: sold out`);
    clock.advance(5_000);
    for (let i = 0; i < 50 && (await r.bot.watches.turn()).kind !== 'checked'; i += 1) clock.advance(1_000);
    await expect.poll(async () => (await r.bot.history.read(event.id)).points.length).toBeGreaterThanOrEqual(2);
    const history = await r.bot.history.read(event.id);
    expect(history.points.at(-1)?.sold).toBe(42);
    expect(history.startsAtMs).toBe(event.startsAtMs);
    // One report call per point: none made for the history itself.
    expect(reportCalls(r)).toBe(history.points.length);
  });
});

describe('a report with its sales history', () => {
  it('shows the pace and forecast in words and in its text, a sales chart, and the promo codes as a chart and a table', async () => {
    rig = await startBot();
    const r = rig;
    const event = r.sim.catalog.events.find(
      (e) =>
        e.status === 'published' &&
        e.startsAtMs > Date.now() + 3 * 86_400_000 &&
        r.sim.catalog.promos.some((p) => p.eventId === e.id),
    );
    if (!event) throw new Error('no upcoming event with promo codes');
    // Three reads over two days already in its history.
    const now = Date.now();
    for (const [hoursAgo, sold] of [
      [48, 10],
      [24, 30],
      [2, 52],
    ] as const)
      await r.bot.history.record(event.id, { at: now - hoursAgo * 3_600_000, sold, capacity: event.capacity });
    await command(r, `report ${event.id}`);
    const shown = await r.slack.waitFor(() =>
      r.slack.calls.find(
        (c) => c.method === 'chat.update' && JSON.stringify(c.args.blocks).includes('data_visualization'),
      ),
    );
    const blocks = JSON.stringify(shown.args.blocks);
    expect(blocks).toContain(':crystal_ball:');
    expect(blocks).toContain('"type":"table"');
    expect(blocks).toContain('Promo codes: redeemed of quantity');
    expect(String(shown.args.text)).toMatch(/Projected|No forecast yet/);
    expect(String(shown.args.text)).toContain('rough guess');
  });
});

describe('watches that know the forecast', () => {
  it('does not alert a pace already below its mark when the watch is set: the history before it is no news (issue 42)', async () => {
    const { r, clock } = await onOneClock();
    const event = r.sim.catalog.events.find(
      (e) => e.status === 'published' && e.startsAtMs > Date.now() + 10 * 86_400_000 && e.capacity >= 200,
    );
    if (!event) throw new Error('no event ten days ahead');
    // A slow week before, and a last day at about four times its pace: below the mark over the
    // week, though the last day is brisk.
    const now = clock.now();
    const capacity = event.capacity;
    for (const [hoursAgo, share] of [
      [8 * 24, 0.1],
      [24, 0.15],
    ] as const)
      await r.bot.history.record(event.id, {
        at: now - hoursAgo * 3_600_000,
        sold: Math.round(capacity * share),
        capacity,
      });
    r.sim.setFigures(event.id, { ticketsSold: Math.round(capacity * 0.18) });
    const mark = Math.ceil(capacity * 0.03);
    const { responseUrl } = await command(r, `watch ${event.id}: pace < ${mark}/day`);
    const path = new URL(responseUrl).pathname;
    const answer = await r.slack.waitFor(() =>
      r.slack.responses.find((c) => c.method === path && !String(c.args.text).startsWith(':hourglass')),
    );
    expect(JSON.stringify(answer.args)).toContain(`Already crossed when the watch was set: \`pace &lt; ${mark}/day\``);
    const card = await r.slack.waitFor(() =>
      r.slack.calls.findLast(
        (c) =>
          (c.method === 'chat.postMessage' || c.method === 'chat.update') &&
          JSON.stringify(c.args.blocks ?? []).includes('already crossed when the watch was set'),
      ),
    );
    expect(JSON.stringify(card.args.blocks)).toContain(`pace &lt; ${mark}/day`);
    // Its next check, on the same history: still nothing alerted.
    clock.advance(2_000);
    for (let i = 0; i < 20 && (await r.bot.watches.turn()).kind !== 'checked'; i += 1) clock.advance(1_000);
    const replies = r.slack.calls.filter((c) => c.method === 'chat.postMessage' && c.args.thread_ts !== undefined);
    expect(replies.map((c) => String(c.args.text))).toEqual([]);
  });

  it('accepts a forecast condition without history, not judged until the history allows, then alerts when the forecast says it sells out, and charts in the card’s thread', async () => {
    const { r, clock } = await onOneClock();
    const event = r.sim.catalog.events.find(
      (e) => e.status === 'published' && e.startsAtMs > Date.now() + 10 * 86_400_000,
    );
    if (!event) throw new Error('no event ten days ahead');
    const said = async (text: string) => {
      const { responseUrl } = await command(r, text);
      const path = new URL(responseUrl).pathname;
      const answer = await r.slack.waitFor(() =>
        r.slack.responses.find((c) => c.method === path && !String(c.args.text).startsWith(':hourglass')),
      );
      return JSON.stringify(answer.args);
    };
    // No history yet: accepted all the same, and its card says from when it is judged.
    expect(await said(`watch ${event.id}: sells out before start`)).toContain('sells out before start');
    const pendingCard = await r.slack.waitFor(() =>
      r.slack.calls.findLast(
        (c) =>
          (c.method === 'chat.postMessage' || c.method === 'chat.update') &&
          JSON.stringify(c.args.blocks ?? []).includes('not judged yet: forecast from about'),
      ),
    );
    expect(JSON.stringify(pendingCard.args.blocks)).toContain('after 3 reports over 6 hours');

    // Two days of brisk sales: at this pace it fills well before its start.
    const now = clock.now();
    const capacity = event.capacity;
    for (const [hoursAgo, share] of [
      [48, 0.2],
      [24, 0.4],
      [1, 0.6],
    ] as const)
      await r.bot.history.record(event.id, {
        at: now - hoursAgo * 3_600_000,
        sold: Math.round(capacity * share),
        capacity,
      });
    r.sim.setFigures(event.id, { ticketsSold: Math.round(capacity * 0.6) });
    const card = await r.slack.waitFor(() =>
      r.slack.calls.find((c) => c.method === 'chat.postMessage' && c.args.metadata && c.args.thread_ts === undefined),
    );
    // Its next check alerts in the thread, and in the channel: the projected day is news.
    clock.advance(2_000);
    for (let i = 0; i < 20 && (await r.bot.watches.turn()).kind !== 'checked'; i += 1) clock.advance(1_000);
    const alert = await r.slack.waitFor(() =>
      r.slack.calls.find(
        (c) =>
          c.method === 'chat.postMessage' && c.args.thread_ts !== undefined && String(c.args.text).includes('sell out'),
      ),
    );
    expect(String(alert.args.reply_broadcast)).toBe('true');
    const edited = await r.slack.waitFor(() =>
      r.slack.calls.findLast(
        (c) => c.method === 'chat.update' && JSON.stringify(c.args.blocks).includes(':crystal_ball:'),
      ),
    );
    expect(JSON.stringify(edited.args.blocks)).toContain('watch_chart');

    // The card's Chart button: the chart in the card's thread, from what is stored.
    const reportsBefore = r.sim.stats().admittedReports;
    const cardTs = String(alert.args.thread_ts);
    await click(r, 'watch_chart', event.id, 'U0EDITOR', { channelId: String(card.args.channel), messageTs: cardTs });
    const chart = await r.slack.waitFor(() =>
      r.slack.calls.find(
        (c) =>
          c.method === 'chat.postMessage' &&
          c.args.thread_ts === cardTs &&
          JSON.stringify(c.args.blocks).includes('data_visualization'),
      ),
    );
    expect(String(chart.args.text)).toContain('Sales of');
    expect(r.sim.stats().admittedReports).toBe(reportsBefore);
  });
  it('charts a personal watch only in the person’s DM: its button copied into a channel posts nothing there', async () => {
    rig = await startBot();
    const r = rig;
    const event = r.sim.catalog.events.find(
      (e) => e.status === 'published' && e.startsAtMs > Date.now() + 3 * 86_400_000,
    );
    if (!event) throw new Error('no upcoming event');
    await watchDirectly(r, 'U0EDITOR', event);
    const { responseUrl } = await click(r, 'watch_chart', event.id, 'U0EDITOR', {
      channelId: 'C0PUBLIC',
      messageTs: '1700000000.000100',
    });
    const path = new URL(responseUrl).pathname;
    const answer = await r.slack.waitFor(() => r.slack.responses.find((c) => c.method === path));
    expect(JSON.stringify(answer.args)).toContain('not watched here');
    expect(r.slack.calls.filter((c) => c.method === 'chat.postMessage' && c.args.channel === 'C0PUBLIC')).toEqual([]);

    await click(r, 'watch_chart', event.id, 'U0EDITOR', { channelId: 'D0EDITOR', messageTs: '1700000000.000200' });
    const inDm = await r.slack.waitFor(() =>
      r.slack.calls.find((c) => c.method === 'chat.postMessage' && c.args.channel === 'D0EDITOR'),
    );
    expect(inDm.args.thread_ts).toBe('1700000000.000200');

    // A channel watch set in the DM itself (without --me) charts there too.
    const other = r.sim.catalog.events.find(
      (e) => e.status === 'published' && e.startsAtMs > Date.now() + 3 * 86_400_000 && e.id !== event.id,
    );
    if (!other) throw new Error('no second upcoming event');
    await watchDirectly(r, 'D0EDITOR', other);
    await click(r, 'watch_chart', other.id, 'U0EDITOR', { channelId: 'D0EDITOR', messageTs: '1700000000.000300' });
    await r.slack.waitFor(() =>
      r.slack.calls.find((c) => c.method === 'chat.postMessage' && c.args.thread_ts === '1700000000.000300'),
    );
  });
});

describe('the forecast’s track record', () => {
  it('answers `/events forecast accuracy` privately with the organization’s own error and range coverage over its finished events', async () => {
    rig = await startBot();
    const r = rig;
    const DAY = 86_400_000;
    const now = Date.now();
    // Six finished events, each read every 6 hours over its 20-day sale: steady sales to ~80%.
    for (let i = 0; i < 6; i += 1) {
      const startsAtMs = now - (60 - i * 8) * DAY;
      const opens = startsAtMs - 20 * DAY;
      const dates = { startsAtMs, endsAtMs: startsAtMs + 3 * 3_600_000 };
      for (let at = opens; at <= startsAtMs; at += DAY / 4)
        await r.bot.history.record(
          `evt_past_${i}`,
          { at, sold: Math.round((800 + i * 5) * ((at - opens) / (startsAtMs - opens))), capacity: 1000 },
          dates,
        );
    }
    const { responseUrl } = await command(r, 'forecast accuracy');
    const path = new URL(responseUrl).pathname;
    const answer = await r.slack.waitFor(() => r.slack.responses.find((c) => c.method === path));
    expect(answer.args.response_type).toBe('ephemeral');
    const text = JSON.stringify(answer.args);
    expect(text).toContain('Forecast accuracy');
    expect(text).toMatch(/off by \d+% of capacity on average over the last 6 finished events \(18 forecasts/);
    expect(text).toMatch(/its 80% range held the outcome \d+% of the time/);
    expect(text).toContain('evt_past_5');
    // From the stored histories only: no report call.
    expect(r.sim.stats().admittedReports).toBe(0);
  });
});
