import { afterEach, describe, expect, it } from 'vitest';
import { CHANGE_PROMO_SHORTCUT, FIELDS, PROMO_MODAL } from '../../src/render/modal-views.js';
import type { SimPromo } from '../../src/simulator/seed.js';
import { type BotRig, SIGNING_SECRET, startBot } from '../helpers/bot.js';
import { command, type Json, nthResponse, reportCalls, submitWatchForm } from '../helpers/bot-actions.js';
import { aheadClock } from '../helpers/clocks.js';
import { postSigned, shortcutBody, viewSubmissionBody } from '../helpers/slack-requests.js';

/*
 * The promo shortcut's form with a mistyped code (Winter Gala, EARLYBRD, 25, Review) became "My
 * answer is in your DM", and the DM said to type a command with the raw id: what was typed was
 * lost, while a wrong quantity stayed on its field. A code's error is the code field's, with the
 * code meant, and the form keeps what was typed. The watch form names the code meant too.
 */

let rig: BotRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** An EARLYBIRD code of a published upcoming event (the seed gives each event EARLYBIRD, FRIENDS and STAFF). */
function earlybird(r: BotRig): SimPromo {
  const promo = r.sim.catalog.promos.find((p) => {
    const event = r.sim.catalog.events.find((e) => e.id === p.eventId);
    return p.code === 'EARLYBIRD' && event?.status === 'published' && event.startsAtMs > Date.now() + 86_400_000;
  });
  if (!promo) throw new Error('no EARLYBIRD');
  return promo;
}

const views = (r: BotRig, method: string) => r.slack.calls.filter((call) => call.method === method);

describe('the promo form with a mistyped code', () => {
  it('stays open as typed, with "did you mean EARLYBIRD" on the code field; nothing read, nothing changed', async () => {
    const clock = aheadClock();
    rig = await startBot({ compose: { clock }, sim: { clock } });
    const promo = earlybird(rig);
    const event = rig.sim.catalog.events.find((each) => each.id === promo.eventId);
    if (!event) throw new Error('no event');
    event.name = 'Winter Gala';
    // A first change reads the event's report: its codes are known from then on.
    const first = await command(rig, `promo ${promo.eventId} EARLYBIRD 12`);
    await nthResponse(rig, first.responseUrl, 2);
    const reads = reportCalls(rig);
    // Past the report's reuse: only the codes remembered from it are at hand.
    clock.advance(120_000);

    const answer = await submitPromoForm(rig, promo.eventId, 'EARLYBRD', '25');
    expect(answer.response_action).toBe('errors');
    expect(answer.errors).toEqual({
      [FIELDS.promo.block]: 'Winter Gala has no code EARLYBRD. Did you mean EARLYBIRD?',
    });
    // The form was not replaced, nor anything posted to the person's DM; no report was read for it.
    expect(views(rig, 'views.update')).toHaveLength(0);
    expect(views(rig, 'chat.postMessage').filter((call) => call.args.channel === 'U0EDITOR')).toHaveLength(0);
    expect(reportCalls(rig)).toBe(reads);
    expect(promo.quantity).not.toBe(25);
  });
});

/** Opens the promo form from the shortcut and submits it as typed; what the bot answered at once, and the view's id. */
async function submitPromoForm(r: BotRig, eventId: string, code: string, quantity: string) {
  await postSigned(r.url, SIGNING_SECRET, shortcutBody({ callbackId: CHANGE_PROMO_SHORTCUT }));
  const opened = await r.slack.waitFor(() => views(r, 'views.open').at(-1));
  const submitted = await postSigned(
    r.url,
    SIGNING_SECRET,
    viewSubmissionBody({
      callbackId: PROMO_MODAL,
      privateMetadata: String((opened.args.view as Json).private_metadata),
      values: {
        [FIELDS.event.block]: {
          [FIELDS.event.action]: { type: 'external_select', selected_option: { value: eventId } },
        },
        [FIELDS.promo.block]: { [FIELDS.promo.action]: { type: 'plain_text_input', value: code } },
        [FIELDS.quantity.block]: { [FIELDS.quantity.action]: { type: 'number_input', value: quantity } },
      },
    }),
  );
  return JSON.parse(submitted.text) as { response_action?: string; errors?: Record<string, string> };
}

/** The form's input blocks' typed values and the words under the code, as the last views.update put them. */
const formBack = (r: BotRig) => {
  const view = views(r, 'views.update').at(-1)?.args.view as Json | undefined;
  const blocks = (view?.blocks ?? []) as Json[];
  const element = (blockId: string) => blocks.find((block) => block.block_id === blockId)?.element as Json | undefined;
  return {
    callbackId: view?.callback_id,
    code: element(FIELDS.promo.block)?.initial_value,
    quantity: element(FIELDS.quantity.block)?.initial_value,
    event: (element(FIELDS.event.block)?.initial_option as Json | undefined)?.value,
    problem: JSON.stringify(blocks.find((block) => block.block_id === 'promo_problem') ?? null),
  };
};

describe('the promo form with a code no report has named yet', () => {
  it('reads the report after Review and, the code not in it, comes back as typed with "did you mean" under the code', async () => {
    rig = await startBot();
    const r = rig;
    const promo = earlybird(r);
    // Nothing read yet: no code of the event is known, so the form cannot tell at once.
    const answer = await submitPromoForm(r, promo.eventId, 'EARLYBRD', '25');
    expect(answer.response_action).toBe('update');
    await r.slack.waitFor(() => (formBack(r).callbackId === PROMO_MODAL ? true : undefined));
    const back = formBack(r);
    expect(back).toMatchObject({ code: 'EARLYBRD', quantity: '25', event: promo.eventId });
    expect(back.problem).toContain('names no code `EARLYBRD`. Did you mean `EARLYBIRD`?');
    // Nothing posted in the person's DM: the answer is on the form.
    expect(views(r, 'chat.postMessage').filter((call) => call.args.channel === 'U0EDITOR')).toHaveLength(0);
    expect(reportCalls(r)).toBe(1);
    expect(promo.quantity).not.toBe(25);
  });

  it('goes on to the confirmation for a code the report names, with that one report read', async () => {
    rig = await startBot();
    const r = rig;
    const promo = earlybird(r);
    await submitPromoForm(r, promo.eventId, 'earlybird', '25');
    const confirmation = await r.slack.waitFor(() =>
      r.slack.calls.find((call) => call.method === 'chat.postMessage' && call.args.channel === 'U0EDITOR'),
    );
    expect(JSON.stringify(confirmation.args.blocks)).toContain('EARLYBIRD');
    expect(JSON.stringify(confirmation.args.blocks)).toContain('25');
    expect(reportCalls(r)).toBe(1);
  });
});

describe('the watch form with a mistyped code', () => {
  it('names the code meant on the conditions field', async () => {
    rig = await startBot();
    const promo = earlybird(rig);
    // A command's watch reads the report: the form then has one at hand.
    const first = await command(rig, `report ${promo.eventId}`);
    await rig.slack.waitFor(() =>
      (rig as BotRig).slack.calls.find(
        (c) => c.method === 'chat.update' && JSON.stringify(c.args).includes('Report: '),
      ),
    );
    expect(first.status).toBe(200);
    const submitted = await submitWatchForm(rig, promo.eventId, 'EARLYBRD left <= 10', { channelId: 'C0001' });
    const answer = JSON.parse(submitted.text) as { response_action?: string; errors?: Record<string, string> };
    expect(answer.response_action).toBe('errors');
    expect(answer.errors?.[FIELDS.conditions.block]).toContain('no promo code EARLYBRD; did you mean EARLYBIRD?');
  });
});
