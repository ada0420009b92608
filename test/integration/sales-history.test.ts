import { afterEach, describe, expect, it } from 'vitest';
import { type BotRig, startBot } from '../helpers/bot.js';
import { command } from '../helpers/bot-actions.js';
import { aheadClock } from '../helpers/clocks.js';

let rig: BotRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const reportCalls = (r: BotRig) => r.sim.stats().log.filter((entry) => entry.path.endsWith('/report')).length;

describe('the sales history', () => {
  it('gains a point from every report read (a person’s, a watch’s check), and makes no report call of its own', async () => {
    const clock = aheadClock();
    rig = await startBot({
      compose: { clock },
      sim: { clock, reportLimit: { limit: 3, windowMs: 1_000 } },
      env: { TICKETING_REPORT_LIMIT: '3/1s', WATCH_MIN_INTERVAL: '1s', TICKETING_REPORT_CACHE_TTL: '0' },
    });
    const r = rig;
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
