import { afterEach, describe, expect, it } from 'vitest';
import type { SimEvent } from '../../src/simulator/seed.js';
import { type BotRig, startBot } from '../helpers/bot.js';
import { command } from '../helpers/bot-actions.js';
import { aheadClock } from '../helpers/clocks.js';

/*
 * A queued report's "position 1, about 58 s" never counted down: its message was edited only when
 * its place changed. It counts down now, edited only when the seconds shown change and at most once
 * every 10 s of the clock (chat.update is Tier 3). The real bot over signed requests, one report
 * call a minute, a clock the test moves ahead instead of waiting.
 */

let rig: BotRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** Room for a busy machine: each wait ends on an event, not a clock. */
const WAIT = { timeout: 20_000 };

const reportPaths = (r: BotRig) => r.sim.stats().log.filter((entry) => entry.path.endsWith('/report'));
/** The seconds each version of the waiting message said, in order (its post, then its edits). */
const waitsShown = (r: BotRig, eventName: string) =>
  r.slack.calls
    .filter((call) => call.method === 'chat.postMessage' || call.method === 'chat.update')
    .map((call) => String(call.args.text))
    .filter((text) => text.startsWith(`Report for ${eventName} queued`))
    .map((text) => Number(/about (\d+) s/.exec(text)?.[1]));

describe("a queued report's wait", () => {
  it('counts down as time passes in the same place, one edit per 10 s at most', async () => {
    const clock = aheadClock();
    rig = await startBot({
      env: { TICKETING_REPORT_LIMIT: '1/60s' },
      compose: { clock, progressIntervalMs: 20 },
      sim: { clock },
    });
    const r = rig;
    const [first, second] = r.sim.catalog.events.filter((event) => event.status === 'published') as [
      SimEvent,
      SimEvent,
    ];
    second.name = 'Winter Gala';
    // The one slot of the minute goes to the first; the second waits for the next.
    await command(r, `report ${first.id}`);
    await expect.poll(() => reportPaths(r).length, WAIT).toBe(1);
    // Its answer in hand first: the limit's window is read from the answer's headers, and an answer
    // still on its way when the clock moves would start the second's wait again.
    await expect
      .poll(
        () =>
          r.slack.calls.some((call) => call.method === 'chat.update' && String(call.args.text).startsWith('Report:')),
        WAIT,
      )
      .toBe(true);
    await command(r, `report ${second.id}`);
    await expect.poll(() => waitsShown(r, 'Winter Gala').length, WAIT).toBe(1);
    const shownAt = performance.now();
    const [before] = waitsShown(r, 'Winter Gala') as [number];
    expect(before).toBeGreaterThan(40);

    // 15 s on (in two steps, the first under 10 s): the wait shown is 15 s shorter, in one edit.
    clock.advance(5_000);
    clock.advance(10_000);
    await expect.poll(() => waitsShown(r, 'Winter Gala').length, WAIT).toBe(2);
    const [, after] = waitsShown(r, 'Winter Gala') as [number, number];
    // The clock runs on with the wall's too: a busy machine's seconds are counted down as well.
    const wallSeconds = Math.ceil((performance.now() - shownAt) / 1000);
    expect(before - after).toBeGreaterThanOrEqual(14);
    expect(before - after).toBeLessThanOrEqual(16 + wallSeconds);
  });
});
