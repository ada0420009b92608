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
