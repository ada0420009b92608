import { afterEach, describe, expect, it } from 'vitest';
import { PROMO_CONFIRM_ACTION } from '../../src/render/promo-blocks.js';
import { type BotRig, startBot } from '../helpers/bot.js';
import { answerTo, blocksText, buttonValue, click, command, nthResponse } from '../helpers/bot-actions.js';
import { waitFor } from '../helpers/wait-for.js';

let rig: BotRig | undefined;

/** Requests the simulator has admitted, including those it is still answering. */
const admitted = (r: BotRig) => r.sim.stats().organizationWindows.reduce((sum, count) => sum + count, 0);
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

describe('shutdown loses nothing', () => {
  it('finishes a promo change in flight and keeps its audit record (the store closes last)', async () => {
    rig = await startBot();
    const promo = rig.sim.catalog.promos[0];
    if (!promo) throw new Error('no promo');
    const { responseUrl } = await command(rig, `promo ${promo.eventId} ${promo.id} 77`);
    const value = buttonValue(await answerTo(rig, responseUrl), PROMO_CONFIRM_ACTION);
    rig.sim.knobs.latencyMs = 400;
    const before = admitted(rig);
    const confirm = await click(rig, PROMO_CONFIRM_ACTION, value);
    // SIGTERM arrives while the POST is on its way: the simulator has it and answers 400 ms later.
    await waitFor(() => rig && admitted(rig) > before, { what: 'the POST to reach the simulator' });
    await rig.restart();
    rig.sim.knobs.latencyMs = 0;
    expect(promo.quantity).toBe(77);
    expect(blocksText(await nthResponse(rig, confirm.responseUrl))).toContain('now allows *77*');
    expect((await rig.bot.activity.promoAudit())[0]).toMatchObject({ outcome: 'updated', quantity: 77 });
  });

  it('tells everyone whose report is still queued that it was not fetched and how to ask again', async () => {
    rig = await startBot({
      sim: { reportLimit: { limit: 1, windowMs: 60_000 } },
      env: { TICKETING_REPORT_LIMIT: '1/60s' },
    });
    const [a, b, c] = rig.sim.catalog.events;
    for (const event of [a, b, c]) await command(rig, `report ${event?.id}`);
    const slack = rig.slack;
    await slack.waitFor(() =>
      slack.calls.filter((call) => call.method === 'chat.postMessage').length === 3 ? true : undefined,
    );
    await rig.restart();
    const lastText = (ts: unknown) =>
      slack.calls
        .filter((call) => (call.method === 'chat.update' || call.method === 'chat.postMessage') && call.args.ts === ts)
        .map((call) => String(call.args.text))
        .at(-1);
    const posted = slack.calls.filter((call) => call.method === 'chat.postMessage');
    const tsOf = (index: number) => slack.postedTs[index];
    expect(String(posted[0]?.args.text)).toContain('Fetching');
    expect(lastText(tsOf(0))).toMatch(/^Report:/);
    for (const index of [1, 2]) {
      expect(lastText(tsOf(index))).toContain('was not fetched');
      expect(lastText(tsOf(index))).toContain('/events report');
    }
  });

  it('answers the command in flight and turns away commands that arrive once shutdown has begun', async () => {
    rig = await startBot();
    rig.sim.knobs.latencyMs = 500;
    const first = await command(rig, 'list');
    // In flight: its crawl's first request is at the simulator, answered 500 ms later.
    await waitFor(() => rig && admitted(rig) > 0, { what: "the list's crawl to reach the simulator" });
    const closing = rig.bot.close();
    const second = await command(rig, 'list');
    await closing;
    expect(blocksText(await nthResponse(rig, second.responseUrl))).toContain('restarting');
    expect(blocksText(await nthResponse(rig, first.responseUrl))).toContain('Upcoming events');
  });
});
