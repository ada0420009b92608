import { afterEach, describe, expect, it } from 'vitest';
import { EVENT_PICKER_ACTION, FIELDS, PROMO_MODAL, REPORT_MODAL, WATCH_MODAL } from '../../src/render/modal-views.js';
import type { SimEvent } from '../../src/simulator/seed.js';
import { type BotRig, SIGNING_SECRET, startBot } from '../helpers/bot.js';
import { answerTo, blocksText, command, reportCalls, submitWatchForm } from '../helpers/bot-actions.js';
import { fastWatches, watchCommand } from '../helpers/fast-watches.js';
import { blockSuggestionBody, postSigned, viewSubmissionBody } from '../helpers/slack-requests.js';

let rig: BotRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** A cancelled event of the simulator's seed that has not ended (cancelled, not over). */
function cancelledEvent(r: BotRig): SimEvent {
  const event = r.sim.catalog.events.find((e) => e.status === 'cancelled' && e.startsAtMs > Date.now() + 86_400_000);
  if (!event) throw new Error('no cancelled upcoming event in the seed');
  return event;
}

type Options = { options: { text: { text: string }; value: string }[] };

describe('a cancelled event cannot be watched or promoted', () => {
  it('refuses /events watch of a cancelled event, naming it cancelled and /events list, with no report call', async () => {
    rig = await startBot();
    const event = cancelledEvent(rig);
    const { responseUrl } = await command(rig, `watch ${event.id}: sold out`);
    const answer = blocksText(await answerTo(rig, responseUrl));
    expect(answer).toContain('is cancelled');
    expect(answer).toContain('/events list');
    expect(reportCalls(rig)).toBe(0);
    expect(await rig.bot.watches.list({})).toHaveLength(0);
  });

  it('gives the report of a cancelled event, saying first that it is cancelled (issue 42)', async () => {
    rig = await startBot();
    const r = rig;
    const event = cancelledEvent(r);
    await command(r, `report ${event.id}`);
    const report = await r.slack.waitFor(() =>
      r.slack.calls.find(
        (c) =>
          (c.method === 'chat.update' || c.method === 'chat.postMessage' || c.method === 'chat.stopStream') &&
          JSON.stringify(c.args.blocks ?? []).includes('Tickets sold'),
      ),
    );
    const text = JSON.stringify(report.args.blocks);
    expect(text).toContain('(cancelled)');
    expect(text).toContain('This event is cancelled.');
    expect(String(report.args.text)).toContain('(cancelled)');
  });

  it('refuses /events promo of a cancelled event before any code is looked up', async () => {
    rig = await startBot();
    const event = cancelledEvent(rig);
    const { responseUrl } = await command(rig, `promo ${event.id} STAFF 5`);
    const answer = blocksText(await answerTo(rig, responseUrl));
    expect(answer).toContain('is cancelled');
    expect(answer).toContain('/events list');
    expect(reportCalls(rig)).toBe(0);
    expect(rig.sim.stats().log.filter((entry) => entry.method === 'PATCH')).toHaveLength(0);
  });

  it('refuses a cancelled event in the watch form and the promo form, each a field error', async () => {
    rig = await startBot();
    const r = rig;
    const event = cancelledEvent(r);
    await r.bot.catalog.snapshot();
    const watched = await submitWatchForm(r, event.id, 'sold out', { channelId: 'C0001' });
    expect(watched.text).toContain('is cancelled');
    expect(await r.bot.watches.list({})).toHaveLength(0);

    const promoted = await postSigned(
      r.url,
      SIGNING_SECRET,
      viewSubmissionBody({
        callbackId: PROMO_MODAL,
        privateMetadata: JSON.stringify({ channelId: 'C0001' }),
        values: {
          [FIELDS.event.block]: {
            [FIELDS.event.action]: { type: 'external_select', selected_option: { value: event.id } },
          },
          [FIELDS.promo.block]: { [FIELDS.promo.action]: { type: 'plain_text_input', value: 'STAFF' } },
          [FIELDS.quantity.block]: { [FIELDS.quantity.action]: { type: 'number_input', value: '5' } },
        },
      }),
    );
    const answer = JSON.parse(promoted.text) as { response_action?: string; errors?: Record<string, string> };
    expect(answer.response_action).toBe('errors');
    expect(answer.errors?.[FIELDS.event.block]).toContain('is cancelled: its promo codes stay as they are');
    expect(reportCalls(r)).toBe(0);
  });

  it('leaves cancelled events out of the watch and promo pickers, and marks them in the report picker', async () => {
    rig = await startBot();
    const event = cancelledEvent(rig);
    // An upcoming event, to show the same pickers do answer a typed name.
    const upcoming = rig.sim.catalog.events.find(
      (each) => each.status === 'published' && each.startsAtMs > Date.now() + 86_400_000,
    );
    if (!upcoming) throw new Error('no upcoming event in the seed');
    const typed = async (callbackId: string, value = event.name) => {
      const answer = await postSigned(
        (rig as BotRig).url,
        SIGNING_SECRET,
        blockSuggestionBody({ actionId: EVENT_PICKER_ACTION, blockId: 'event', value, callbackId }),
      );
      // Options, or (nothing matching) the closest names under a "no event matches" group.
      const body = JSON.parse(answer.text) as Options & { option_groups?: Options[] };
      return [...(body.options ?? []), ...(body.option_groups ?? []).flatMap((group) => group.options)];
    };
    for (const form of [WATCH_MODAL, PROMO_MODAL]) {
      expect((await typed(form)).map((option) => option.value)).not.toContain(event.id);
      expect((await typed(form, upcoming.name)).map((option) => option.value)).toContain(upcoming.id);
    }
    const offered = (await typed(REPORT_MODAL)).find((option) => option.value === event.id);
    expect(offered?.text.text).toMatch(/^\(cancelled\) /);
  });
});

describe('a watched event that is cancelled', () => {
  it('ends its watch at the next turn, with a word in the thread and on the card', async () => {
    const { clock, options, check } = fastWatches();
    rig = await startBot(options);
    const r = rig;
    const event = r.sim.catalog.events.find((e) => e.status === 'published' && e.startsAtMs > Date.now() + 86_400_000);
    if (!event) throw new Error('no upcoming published event');
    expect(await watchCommand(r, `watch ${event.id}: sold out`)).toContain('Watching');
    await check(r);
    (event as { status: string }).status = 'cancelled';
    // The next crawl reads the cancellation; the turn after it ends the watch with no report call.
    clock.advance(r.bot.catalog.periodMs + 1);
    await r.bot.catalog.snapshot();
    const before = reportCalls(r);
    await r.bot.watches.turn();
    expect(await r.bot.watches.list({})).toHaveLength(0);
    expect(reportCalls(r)).toBe(before);
    const summary = r.slack.calls.find(
      (call) => call.method === 'chat.postMessage' && String(call.args.text).includes('is cancelled'),
    );
    expect(summary?.args.thread_ts).toBeDefined();
    const card = r.slack.calls.filter((call) => call.method === 'chat.update').at(-1);
    expect(JSON.stringify(card?.args)).toContain('The event is cancelled');
  });
});
