import { afterEach, describe, expect, it } from 'vitest';
import { PROMO_CANCEL_ACTION, PROMO_CONFIRM_ACTION } from '../../src/render/promo-blocks.js';
import type { SimPromo } from '../../src/simulator/seed.js';
import { openStore } from '../../src/store/open-store.js';
import { type BotRig, startBot } from '../helpers/bot.js';
import {
  answerTo,
  blocksText,
  buttonValue,
  click,
  command,
  type Json,
  nthResponse,
  publishedPromo,
  reportCalls,
} from '../helpers/bot-actions.js';
import { faultyAdapter, type StoreFaults } from '../helpers/faulty-store.js';

let rig: BotRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const posts = (r: BotRig) => r.sim.stats().log.filter((entry) => entry.method === 'POST');

async function propose(r: BotRig, promo: SimPromo, quantity: number, user = 'U0EDITOR'): Promise<Json> {
  const { responseUrl } = await command(r, `promo ${promo.eventId} ${promo.id} ${quantity}`, user);
  // The quantity now is read for the change first (no report at hand): the confirmation follows.
  const proposal = await answerTo(r, responseUrl);
  expect(blocksText(proposal)).toContain(PROMO_CONFIRM_ACTION);
  return proposal;
}

async function confirm(r: BotRig, value: string, user = 'U0EDITOR'): Promise<Json> {
  const { responseUrl } = await click(r, PROMO_CONFIRM_ACTION, value, user);
  return nthResponse(r, responseUrl);
}

function promoAt(r: BotRig, index: number): SimPromo {
  const promo = r.sim.catalog.promos[index];
  if (!promo) throw new Error('no promo');
  return promo;
}

describe('promo confirmations cannot be forged, replayed or outlived', () => {
  it('carries only an opaque id: an edited button value (quantity 999999999999) writes nothing', async () => {
    rig = await startBot();
    const promo = promoAt(rig, 1);
    const proposal = await propose(rig, promo, 12);
    const value = buttonValue(proposal, PROMO_CONFIRM_ACTION);
    // The button carries a random id and nothing of the change itself.
    expect(value).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    const forged = JSON.stringify({ e: promo.eventId, p: promo.id, q: 999_999_999_999, t: 'x', n: 'n1' });
    const answer = await confirm(rig, forged);
    expect(blocksText(answer)).toContain("I don't know this confirmation");
    expect(posts(rig)).toHaveLength(0);
    expect((await rig.bot.activity.promoAudit())[0]).toMatchObject({ outcome: 'refused', error: 'unknown' });
  });

  it('applies a confirmation once, even clicked again after a restart', async () => {
    rig = await startBot();
    const promo = promoAt(rig, 2);
    const value = buttonValue(await propose(rig, promo, 40), PROMO_CONFIRM_ACTION);
    expect(blocksText(await confirm(rig, value))).toContain('now allows *40*');
    expect(blocksText(await confirm(rig, value))).toContain('already used');
    await rig.restart();
    promo.quantity = 7; // someone changed it since: a replayed click must not undo that
    expect(blocksText(await confirm(rig, value))).toContain('already used');
    expect(posts(rig)).toHaveLength(1);
    expect(promo.quantity).toBe(7);
    const outcomes = (await rig.bot.activity.promoAudit()).map((record) => [record.outcome, record.error]);
    expect(outcomes).toEqual([
      ['refused', 'used'],
      ['refused', 'used'],
      ['updated', undefined],
    ]);
  });

  it('asks again, writing nothing, when the quantity it showed was written over since (issue 42)', async () => {
    rig = await startBot();
    const promo = promoAt(rig, 4);
    const before = promo.quantity;
    const stale = await propose(rig, promo, 15);
    expect(blocksText(stale)).toContain(`it allows *${before}* now`);
    const since = buttonValue(await propose(rig, promo, 20), PROMO_CONFIRM_ACTION);
    expect(blocksText(await confirm(rig, since))).toContain(`now allows *20* redemptions (was ${before})`);

    // The first confirmation showed the quantity before that write: asked again with the one now.
    const again = await confirm(rig, buttonValue(stale, PROMO_CONFIRM_ACTION));
    expect(blocksText(again)).toContain('was changed since you were asked');
    expect(blocksText(again)).toContain('20 → 15');
    expect(blocksText(again)).toContain('it allows *20* now');
    expect(promo.quantity).toBe(20);
    expect(posts(rig)).toHaveLength(1);
    expect(blocksText(await confirm(rig, buttonValue(again, PROMO_CONFIRM_ACTION)))).toContain(
      'now allows *15* redemptions (was 20)',
    );
    expect(promo.quantity).toBe(15);
  });

  it('shows a quantity just written on the watch card of its event, with no report read for it (issue 42)', async () => {
    rig = await startBot();
    const r = rig;
    const promo = publishedPromo(r);
    await command(r, `watch ${promo.eventId}: sold out`);
    const card = () =>
      r.slack.calls
        .filter((c) => (c.method === 'chat.postMessage' || c.method === 'chat.update') && !c.args.thread_ts)
        .map((c) => blocksText(c.args))
        .findLast((text) => text.includes('Watching:') && text.includes('*Promo codes*'));
    await r.slack.waitFor(() => card());
    const quantity = promo.quantity + 7;
    expect(card()).toContain(`of ${promo.quantity} left`);
    const done = await confirm(r, buttonValue(await propose(r, promo, quantity), PROMO_CONFIRM_ACTION));
    expect(blocksText(done)).toContain(`now allows *${quantity}*`);
    const reads = reportCalls(r);

    // A condition added redraws the card from the event's last check and the record since.
    const since = r.slack.calls.length;
    await command(r, `watch ${promo.eventId}: sold >= 90%`);
    await r.slack.waitFor(() =>
      r.slack.calls
        .slice(since)
        .find((c) => c.method === 'chat.update' && blocksText(c.args).includes('sold &gt;= 90%')),
    );
    expect(card()).toContain(`of ${quantity} left`);
    expect(reportCalls(r)).toBe(reads);
  });

  it('lets only the person who asked confirm, even another editor', async () => {
    rig = await startBot();
    rig.slack.groups.set('S0EDITORS', ['U0OTHER']);
    const promo = promoAt(rig, 3);
    const value = buttonValue(await propose(rig, promo, 15), PROMO_CONFIRM_ACTION);
    expect(blocksText(await confirm(rig, value, 'U0OTHER'))).toContain('Only the person who asked');
    const cancel = await click(rig, PROMO_CANCEL_ACTION, value, 'U0OTHER');
    expect(blocksText(await nthResponse(rig, cancel.responseUrl))).toContain('Only the person who asked');
    expect(posts(rig)).toHaveLength(0);
    // The asker's confirmation still works.
    expect(blocksText(await confirm(rig, value))).toContain('now allows *15*');
    expect(promo.quantity).toBe(15);
  });

  it('refuses an expired confirmation and writes nothing', async () => {
    // The bot's clock is moved past the (default, ten-minute) validity instead of waiting it out.
    let aheadMs = 0;
    rig = await startBot({ compose: { clock: { now: () => Date.now() + aheadMs } } });
    const promo = promoAt(rig, 4);
    const before = promo.quantity;
    const value = buttonValue(await propose(rig, promo, 99), PROMO_CONFIRM_ACTION);
    aheadMs = 10 * 60_000;
    expect(blocksText(await confirm(rig, value))).toContain('expired');
    expect(posts(rig)).toHaveLength(0);
    expect(promo.quantity).toBe(before);
    expect((await rig.bot.activity.promoAudit())[0]).toMatchObject({ outcome: 'refused', error: 'expired' });
  });

  it('refuses "1,000" and "1_000" with a message saying so, instead of reading 1', async () => {
    rig = await startBot();
    const promo = promoAt(rig, 5);
    for (const typed of ['1,000', '1_000']) {
      const { responseUrl } = await command(rig, `promo ${promo.eventId} ${promo.id} ${typed}`);
      const answer = blocksText(await nthResponse(rig, responseUrl));
      expect(answer).toContain('without separators');
      expect(answer).not.toContain(PROMO_CONFIRM_ACTION);
    }
    expect(rig.sim.stats().requests).toBe(0);
  });
});

describe('promo outcomes', () => {
  it('tells the person the store failed, and sends nothing, when the confirmation cannot be read', async () => {
    const faults: StoreFaults = { reads: false, writes: false };
    rig = await startBot({
      compose: {
        openStore: () => openStore('sqlite://:memory:', { wrapAdapter: (adapter) => faultyAdapter(adapter, faults) }),
      },
    });
    const promo = promoAt(rig, 10);
    const value = buttonValue(await propose(rig, promo, 44), PROMO_CONFIRM_ACTION);
    faults.reads = true;
    const answer = blocksText(await confirm(rig, value));
    expect(answer).toContain("couldn't reach my own storage");
    expect(posts(rig)).toHaveLength(0);
    faults.reads = false;
    // Nothing was used up: the confirmation still works once the store is back.
    expect(blocksText(await confirm(rig, value))).toContain('now allows *44*');
  });

  it('says "may or may not have been applied" when the write is never answered, and audits unknown', async () => {
    rig = await startBot();
    const promo = promoAt(rig, 6);
    const value = buttonValue(await propose(rig, promo, 250), PROMO_CONFIRM_ACTION);
    // Every attempt is applied by the service, then the connection drops before the answer.
    rig.sim.knobs.faultKinds = ['drop-after'];
    rig.sim.knobs.faultRate = 1;
    const answer = blocksText(await confirm(rig, value));
    expect(answer).toContain('may or may not have been applied');
    expect(answer).not.toContain('was not changed');
    expect(promo.quantity).toBe(250);
    expect(posts(rig).length).toBeGreaterThan(1); // retried like a read: setting a quantity is idempotent
    expect((await rig.bot.activity.promoAudit())[0]).toMatchObject({ outcome: 'unknown', quantity: 250 });
  });

  it('recovers from one dropped answer by retrying, and reports the change as made', async () => {
    rig = await startBot();
    const promo = promoAt(rig, 7);
    const value = buttonValue(await propose(rig, promo, 31), PROMO_CONFIRM_ACTION);
    rig.sim.forceFault(1, 'drop-after');
    const answer = blocksText(await confirm(rig, value));
    expect(answer).toContain('now allows *31*');
    expect(posts(rig)).toHaveLength(2);
    expect((await rig.bot.activity.promoAudit())[0]).toMatchObject({ outcome: 'updated' });
  });

  it('escapes a hostile error body from the service instead of pinging the channel', async () => {
    rig = await startBot();
    const promo = promoAt(rig, 8);
    const value = buttonValue(await propose(rig, promo, 5), PROMO_CONFIRM_ACTION);
    rig.sim.forceAnswer(1, 409, {
      error: 'conflict',
      message: '<!channel> please <https://evil.example|log in again> & <@U0BOSS>',
    });
    const answer = await confirm(rig, value);
    const text = `${blocksText(answer)}${String(answer.text)}`;
    expect(text).toContain('The promo code was not changed');
    expect(text).toContain('&lt;!channel&gt; please &lt;https://evil.example|log in again&gt; &amp; &lt;@U0BOSS&gt;');
    expect(text).not.toMatch(/<!channel>|<https:|<@U0BOSS>/);
    expect((await rig.bot.activity.promoAudit())[0]).toMatchObject({ outcome: 'failed' });
  });

  it('escapes an event title once in the confirmation, the reply and the announcement', async () => {
    rig = await startBot();
    const promo = promoAt(rig, 9);
    const event = rig.sim.catalog.events.find((each) => each.id === promo.eventId);
    if (!event) throw new Error('no event');
    event.name = 'Rock & Roll <live>';
    const proposal = await propose(rig, promo, 3);
    const done = await confirm(rig, buttonValue(proposal, PROMO_CONFIRM_ACTION));
    const announcement = await rig.slack.waitFor(() => rig?.slack.calls.find((c) => c.method === 'chat.postMessage'));
    for (const text of [blocksText(proposal), blocksText(done), JSON.stringify(announcement.args.blocks)]) {
      expect(text).toContain('Rock &amp; Roll &lt;live&gt;');
      expect(text).not.toContain('&amp;amp;');
    }
  });
});
