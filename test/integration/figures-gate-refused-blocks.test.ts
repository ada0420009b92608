import { afterEach, describe, expect, it } from 'vitest';
import type { BotRig } from '../helpers/bot.js';
import { click, nthResponse, responsesTo } from '../helpers/bot-actions.js';
import { command, onOneClock, posts, tsOf, upcoming, watchedWithFigures } from './figures-gate-rig.js';

/**
 * Messages Slack refuses (issue 33, Deliver 7), on the real Bolt app: a sales digest and a watch's
 * chart whose charts and tables Slack answers `invalid_blocks` to are sent again without them,
 * saying so, rather than lost. (Reports: refused-blocks.test.ts.)
 */

let rig: BotRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const RICH = ['data_visualization', 'table'];
const hasRich = (blocks: unknown) =>
  Array.isArray(blocks) && blocks.some((block) => RICH.includes((block as { type?: string }).type ?? ''));
const NOTE = 'The chart and table could not be shown here';

/** What `/events <text>` answers first on its response URL. */
async function ask(r: BotRig, text: string, channel: string) {
  return JSON.stringify(await nthResponse(r, await command(r, text, channel)));
}

describe('a message whose charts Slack refuses, on the Bolt app', () => {
  it('is a sales digest all the same: posted again without its chart, saying so', async () => {
    const { r } = await onOneClock();
    rig = r;
    r.slack.refusedBlockTypes.add('data_visualization').add('table');
    const event = upcoming(r);
    await watchedWithFigures(r, 'C0SALES', event);
    const now = Date.now();
    for (const [hoursAgo, sold] of [
      [48, 10],
      [24, 30],
      [3, 55],
    ] as const)
      await r.bot.history.record(event.id, { at: now - hoursAgo * 3_600_000, sold, capacity: event.capacity });
    expect(await ask(r, 'digest on --sales daily 08:00 UTC', 'C0SALES')).toContain('Daily sales digest on');

    expect(await ask(r, 'digest now --sales', 'C0SALES')).toContain("Posted today's sales digest.");
    const digests = posts(r, 'C0SALES').filter((call) =>
      JSON.stringify(call.args.blocks).includes('Daily sales digest'),
    );
    // Tried with its chart (refused), then posted without it: one digest reached the channel.
    expect(digests.filter((call) => hasRich(call.args.blocks)).length).toBeGreaterThanOrEqual(1);
    const shown = digests.filter((call) => !hasRich(call.args.blocks));
    expect(shown).toHaveLength(1);
    expect(JSON.stringify(shown[0]?.args.blocks)).toContain(NOTE);
  });

  it("is a watch's chart all the same: replied in the card's thread without it, saying so", async () => {
    const { r } = await onOneClock();
    rig = r;
    r.slack.refusedBlockTypes.add('data_visualization').add('table');
    const event = upcoming(r);
    const card = await watchedWithFigures(r, 'C0CHART', event);
    const cardTs = tsOf(r, card);
    const clicked = await click(r, 'watch_chart', event.id, 'U0EDITOR', { channelId: 'C0CHART', messageTs: cardTs });
    const inThread = () => posts(r, 'C0CHART').filter((call) => call.args.thread_ts === cardTs);
    const shown = await r.slack.waitFor(() => inThread().find((call) => !hasRich(call.args.blocks)));
    expect(JSON.stringify(shown.args.blocks)).toContain(NOTE);
    expect(inThread().filter((call) => hasRich(call.args.blocks)).length).toBeGreaterThanOrEqual(1);
    // No failure said to the person who clicked.
    expect(JSON.stringify(responsesTo(r, clicked.responseUrl).map((call) => call.args))).not.toContain('warning');
  });
});
