import { afterEach, describe, expect, it } from 'vitest';
import { seedSalesHistory } from '../../src/sandbox/seed-sales-history.js';
import { type BotRig, startBot } from '../helpers/bot.js';

/*
 * The sandbox seeds its sales history from the simulator's past while its page opens; a stop
 * during the seeding (Ctrl-C at once) waited for all of it, past the start script's own bound on a
 * busy machine. The seeding now stops between two points once shutdown has begun.
 */

let rig: BotRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

describe('seeding the sandbox sales history', () => {
  it('seeds the events listed first and the finished ones, and nothing once shutdown has begun', async () => {
    rig = await startBot();
    const now = Date.now();
    const stopped = new AbortController();
    stopped.abort(new Error('shutting down'));
    expect(
      await seedSalesHistory({ simulator: rig.sim, history: rig.bot.history, now, stopping: stopped.signal }),
    ).toBe(0);
    const seededIds = rig.sim.catalog.events.map((event) => event.id);
    const histories = await Promise.all(seededIds.map((id) => rig?.bot.history.read(id)));
    expect(histories.every((history) => (history?.points.length ?? 0) === 0)).toBe(true);

    expect(await seedSalesHistory({ simulator: rig.sim, history: rig.bot.history, now })).toBeGreaterThan(0);
  });
});
