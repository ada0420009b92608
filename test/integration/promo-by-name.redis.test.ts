import { afterEach, describe, expect, it } from 'vitest';
import { FINISH_COMMAND_ACTION } from '../../src/render/event-blocks.js';
import { CHANGE_PROMO_SHORTCUT, FIELDS, PROMO_MODAL } from '../../src/render/modal-views.js';
import { PROMO_CONFIRM_ACTION } from '../../src/render/promo-blocks.js';
import type { SimEvent, SimPromo } from '../../src/simulator/seed.js';
import { type BotRig, SIGNING_SECRET, startBot } from '../helpers/bot.js';
import {
  answerTo,
  blocksText,
  buttonValue,
  click,
  command,
  type Json,
  nthResponse,
  openHome,
  reportCalls,
  responsesTo,
} from '../helpers/bot-actions.js';
import { aheadClock } from '../helpers/clocks.js';
import type { SlackCall } from '../helpers/fake-slack.js';
import { useRedis } from '../helpers/redis-server.js';
import { postSigned, shortcutBody, viewSubmissionBody } from '../helpers/slack-requests.js';

/*
 * Issue 29 item 1: promo changes the way people talk: the event by name, the code people know,
 * the quantity now, codes remembered from every report read, and the form that says where its
 * answer went.
 */

const redis = useRedis();
let rig: BotRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const writes = (r: BotRig) => r.sim.stats().log.filter((entry) => entry.method === 'POST' || entry.method === 'PATCH');
const sent = (r: BotRig, method: string) => r.slack.calls.filter((call) => call.method === method);

/** A published, upcoming event with promo codes, renamed as people know it, and one of its codes. */
function meetup(r: BotRig, name = 'Quokka Lantern Evening'): { event: SimEvent; promo: SimPromo; others: SimPromo[] } {
  for (const event of r.sim.catalog.events) {
    if (event.status !== 'published' || event.startsAtMs < Date.now() + 3_600_000) continue;
    const promos = r.sim.catalog.promos.filter((p) => p.eventId === event.id);
    const [promo, ...others] = promos;
    if (!promo || others.length === 0) continue;
    event.name = name;
    return { event, promo, others };
  }
  throw new Error('no upcoming event with two promo codes');
}

describe('/events promo by event name', () => {
  it('takes an event name of several words, then the code and quantity; the confirmation names the code, the event and the quantity now, and replaces the "fetching" message', async () => {
    rig = await startBot();
    const { promo } = meetup(rig);
    promo.quantity = 80;
    const { responseUrl } = await command(rig, `promo quokka lantern evening ${promo.code.toLowerCase()} 100`);
    expect(blocksText(await nthResponse(rig, responseUrl, 1))).toContain('Fetching the event');
    const proposal = await nthResponse(rig, responseUrl, 2);
    expect(proposal.replace_original).toBe(true);
    const text = blocksText(proposal);
    expect(text).toContain(`\`${promo.code}\` on Quokka Lantern Evening: 80 → 100`);
    expect(String(proposal.text)).toContain(promo.code);
    expect(text).toContain(PROMO_CONFIRM_ACTION);
    // Confirmed: the answer, the channel's announcement, the audit and App Home name code and event.
    const confirmed = await click(rig, PROMO_CONFIRM_ACTION, buttonValue(proposal, PROMO_CONFIRM_ACTION));
    const done = blocksText(await nthResponse(rig, confirmed.responseUrl));
    expect(done).toContain(promo.code);
    expect(done).toContain('Quokka Lantern Evening');
    expect(promo.quantity).toBe(100);
    const announced = await rig.slack.waitFor(() => sent(rig as BotRig, 'chat.postMessage')[0]);
    expect(JSON.stringify(announced.args.blocks)).toContain(`${promo.code}`);
    expect((await rig.bot.activity.promoAudit())[0]).toMatchObject({
      outcome: 'updated',
      eventName: 'Quokka Lantern Evening',
      code: promo.code,
      quantity: 100,
    });
    const history = await openHome(rig, 'U0EDITOR');
    expect(history).toContain(`\`${promo.code}\` on Quokka Lantern Evening`);
  });

  it('offers the events a name matches, with buttons that carry the code and quantity on to the confirmation', async () => {
    rig = await startBot();
    const { promo } = meetup(rig, 'Quokka Parade North');
    const other = rig.sim.catalog.events.find(
      (e) => e.id !== promo.eventId && e.status === 'published' && e.startsAtMs > Date.now() + 3_600_000,
    );
    if (!other) throw new Error('no second event');
    other.name = 'Quokka Parade South';
    const { responseUrl } = await command(rig, `promo quokka parade ${promo.code} 42`);
    const choices = await nthResponse(rig, responseUrl);
    expect(blocksText(choices)).toContain('Quokka Parade South');
    const buttons = ((choices.blocks ?? []) as Json[])
      .map((block) => block.accessory as Json | undefined)
      .filter((button) => button?.action_id === FINISH_COMMAND_ACTION);
    expect(buttons).toHaveLength(2);
    const north = buttons.find((button) => String(button?.value).includes(promo.eventId));
    const picked = await click(rig, FINISH_COMMAND_ACTION, String(north?.value));
    const answers = () => responsesTo(rig as BotRig, picked.responseUrl).map((call) => call.args);
    const proposal = await rig.slack.waitFor(() => answers().find((a) => blocksText(a).includes(PROMO_CONFIRM_ACTION)));
    expect(proposal.replace_original).toBe(true);
    expect(blocksText(proposal)).toContain(`\`${promo.code}\` on Quokka Parade North`);
    expect(blocksText(proposal)).toContain('42');
  });

  it('says that no event matches the name, and writes nothing', async () => {
    rig = await startBot();
    const { promo } = meetup(rig);
    const { responseUrl } = await command(rig, `promo no such gathering ${promo.code} 5`);
    expect(blocksText(await nthResponse(rig, responseUrl))).toContain('No event matches');
    expect(reportCalls(rig)).toBe(0);
    expect(writes(rig)).toHaveLength(0);
  });

  it('lists the codes known for the event when the code is one no report names', async () => {
    rig = await startBot();
    const { event, promo, others } = meetup(rig);
    const { responseUrl } = await command(rig, `promo ${event.id} NOSUCHCODE 12`);
    const answer = await nthResponse(rig, responseUrl, 2);
    expect(answer.replace_original).toBe(true);
    const text = blocksText(answer);
    expect(text).toContain('NOSUCHCODE');
    for (const known of [promo, ...others]) expect(text).toContain(known.code);
  });
});

let namespaces = 0;

describe.each([
  ['one process', () => ({})],
  ['replicas on Redis', () => ({ STORE_URL: redis.url, STORE_NAMESPACE: `promo-known-${++namespaces}` })],
])('a code seen in an earlier report (%s)', (mode, env) => {
  it('resolves the code it remembers after the cached report expired, reading only its quantity now', async () => {
    const clock = aheadClock();
    rig = await startBot({ env: env(), compose: { clock }, sim: { clock } });
    const r = rig;
    const { event, promo } = meetup(r);
    await command(r, `report ${event.id}`);
    await expect.poll(async () => (await r.bot.activity.recent('U0EDITOR')).reports.length).toBe(1);
    expect(reportCalls(r)).toBe(1);
    // Long past the report cache and any report window.
    clock.advance(3 * 3_600_000);
    const { responseUrl } = await command(r, `promo quokka lantern evening ${promo.code} 21`);
    const proposal = await answerTo(r, responseUrl);
    expect(blocksText(proposal)).toContain(PROMO_CONFIRM_ACTION);
    expect(blocksText(proposal)).toContain(`\`${promo.code}\` on Quokka Lantern Evening`);
    // The code's id was remembered; its quantity now is read for the person to see: a report
    // call in one process, and from the shared cache with replicas (Redis keeps it 60 s of its
    // own clock, which the test's clock does not move).
    expect(blocksText(proposal)).toContain(`${promo.quantity} → 21`);
    expect(reportCalls(r)).toBe(mode === 'one process' ? 2 : 1);
  });
});

describe('/events watch with a code no report names', () => {
  it('lists the codes the event has', async () => {
    rig = await startBot();
    const { event, promo, others } = meetup(rig);
    const { responseUrl } = await command(rig, `watch ${event.id}: NOSUCHCODE left <= 5`);
    const r = rig;
    const answer = await r.slack.waitFor(() =>
      responsesTo(r, responseUrl)
        .map((call) => call.args)
        .find((a) => blocksText(a).includes('NOSUCHCODE')),
    );
    const text = blocksText(answer);
    for (const known of [promo, ...others]) expect(text).toContain(known.code);
  });
});

describe('the promo form', () => {
  const submit = (r: BotRig, body: string) => postSigned(r.url, SIGNING_SECRET, body);
  const promoValues = (eventId: string, promoText: string, quantity: string) => ({
    [FIELDS.event.block]: {
      [FIELDS.event.action]: { type: 'external_select', selected_option: { value: eventId } },
    },
    [FIELDS.promo.block]: { [FIELDS.promo.action]: { type: 'plain_text_input', value: promoText } },
    [FIELDS.quantity.block]: { [FIELDS.quantity.action]: { type: 'number_input', value: quantity } },
  });
  /** Reviews the promo form `opened` showed, filled in; the view the bot updates it to. */
  const review = async (r: BotRig, opened: SlackCall, ...filled: Parameters<typeof promoValues>) => {
    const reviewed = await submit(
      r,
      viewSubmissionBody({
        callbackId: PROMO_MODAL,
        privateMetadata: String((opened.args.view as Json).private_metadata),
        values: promoValues(...filled),
      }),
    );
    const ack = JSON.parse(reviewed.text) as { response_action: string; view: Json };
    expect(ack.response_action).toBe('update');
    return ack.view;
  };

  it('tells a non-editor before the form is filled, from the shortcut and from /events promo', async () => {
    rig = await startBot();
    await submit(rig, shortcutBody({ callbackId: CHANGE_PROMO_SHORTCUT, userId: 'U0NOBODY' }));
    const opened = await rig.slack.waitFor(() => sent(rig as BotRig, 'views.open')[0]);
    const view = opened.args.view as Json;
    expect(view.callback_id).not.toBe(PROMO_MODAL);
    expect(view.submit).toBeUndefined();
    expect(JSON.stringify(view.blocks)).toContain('Only promo editors');
    await command(rig, 'promo', 'U0NOBODY');
    const second = await rig.slack.waitFor(() => sent(rig as BotRig, 'views.open')[1]);
    expect(JSON.stringify((second.args.view as Json).blocks)).toContain('Only promo editors');
  });

  it('after Review, shows where the confirmation went: the channel, or the DM', async () => {
    rig = await startBot();
    const { event, promo } = meetup(rig);
    await command(rig, 'promo');
    const opened = await rig.slack.waitFor(() => sent(rig as BotRig, 'views.open')[0]);
    const reviewed = await review(rig, opened, event.id, promo.id, '64');
    expect(JSON.stringify(reviewed.blocks)).toContain('<#C0001>');
    await rig.slack.waitFor(() => sent(rig as BotRig, 'chat.postEphemeral')[0]);

    await submit(rig, shortcutBody({ callbackId: CHANGE_PROMO_SHORTCUT }));
    const fromShortcut = await rig.slack.waitFor(() => sent(rig as BotRig, 'views.open')[1]);
    const dmReview = await review(rig, fromShortcut, event.id, promo.code, '65');
    expect(JSON.stringify(dmReview.blocks)).toContain('your DM');
  });
});

describe('/events help', () => {
  it("gives promo's example with a code and an event name, not ids", async () => {
    rig = await startBot();
    const { responseUrl } = await command(rig, 'help');
    const help = blocksText(await nthResponse(rig, responseUrl));
    const example = help.match(/`\/events promo [^`]*`/g)?.find((each) => /\d`$/.test(each)) ?? '';
    expect(example).toContain('EARLYBIRD');
    expect(example).not.toContain('promo_');
    expect(example).not.toContain('evt_');
  });
});
