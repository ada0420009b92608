import { afterEach, describe, expect, it } from 'vitest';
import { PROMO_CONFIRM_ACTION } from '../../src/render/promo-blocks.js';
import { type BotRig, startBot } from '../helpers/bot.js';
import {
  answerTo,
  blocksText,
  buttonValue,
  click,
  command,
  nthResponse,
  publishedPromo,
  reportCalls,
} from '../helpers/bot-actions.js';
import { aheadClock } from '../helpers/clocks.js';

let rig: BotRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

describe('/events promo by the code people know', () => {
  it('finds EARLYBIRD in a report at hand (a watch of the event), without a report call, and changes it after confirmation', async () => {
    rig = await startBot();
    const promo = publishedPromo(rig);
    await command(rig, `watch ${promo.eventId}: sold out`);
    // The report the watch's conditions were read from is its first check: at hand from then on.
    const r = rig;
    // Waited for, not timed: the first check follows the channel's lookups (its members too).
    await expect.poll(async () => (await r.bot.watches.lastCheck(promo.eventId))?.checks, { timeout: 10_000 }).toBe(1);
    const before = reportCalls(rig);
    const { responseUrl } = await command(rig, `promo ${promo.eventId} ${promo.code.toLowerCase()} 77`);
    const proposal = await nthResponse(rig, responseUrl);
    expect(blocksText(proposal)).toContain(promo.id);
    expect(reportCalls(rig)).toBe(before);
    const { responseUrl: confirmUrl } = await click(
      rig,
      PROMO_CONFIRM_ACTION,
      buttonValue(proposal, PROMO_CONFIRM_ACTION),
    );
    expect(blocksText(await nthResponse(rig, confirmUrl))).toContain('now allows *77*');
    expect(promo.quantity).toBe(77);
  });

  it('fetches the report when none is at hand, telling the person they wait for it first', async () => {
    rig = await startBot();
    const promo = publishedPromo(rig);
    const { responseUrl } = await command(rig, `promo ${promo.eventId} ${promo.code} 12`);
    expect(blocksText(await nthResponse(rig, responseUrl, 1))).toContain('Fetching the event');
    const proposal = await nthResponse(rig, responseUrl, 2);
    expect(blocksText(proposal)).toContain(promo.id);
    expect(reportCalls(rig)).toBe(1);
  });

  it('says a code the report does not name, asks for the id, and changes nothing', async () => {
    rig = await startBot();
    const promo = publishedPromo(rig);
    const { responseUrl } = await command(rig, `promo ${promo.eventId} NOSUCHCODE 12`);
    const answer = blocksText(await nthResponse(rig, responseUrl, 2));
    expect(answer).toContain('names no promo code');
    expect(answer).toContain('NOSUCHCODE');
    expect(rig.sim.stats().log.filter((entry) => entry.method === 'POST' || entry.method === 'PATCH')).toHaveLength(0);
  });

  it('spends no report call on a code for someone who is not a promo editor', async () => {
    rig = await startBot();
    const promo = publishedPromo(rig);
    const { responseUrl } = await command(rig, `promo ${promo.eventId} ${promo.code} 12`, 'U0NOBODY');
    expect(blocksText(await nthResponse(rig, responseUrl))).toContain('promo editor');
    expect(reportCalls(rig)).toBe(0);
  });
});

describe('/events promo: the report at hand is fresh', () => {
  it('does not give a watch check older than a report window as the quantity now: it reads the quantity now in the person’s turn', async () => {
    const clock = aheadClock();
    rig = await startBot({ compose: { clock }, sim: { clock } });
    const promo = publishedPromo(rig);
    await command(rig, `watch ${promo.eventId}: sold out`);
    const r = rig;
    // Waited for, not timed: the first check follows the channel's lookups (its members too).
    await expect.poll(async () => (await r.bot.watches.lastCheck(promo.eventId))?.checks, { timeout: 10_000 }).toBe(1);
    // The check is now two report windows old, and the quantity has changed since.
    clock.advance(120_000);
    promo.quantity += 3;
    const before = reportCalls(rig);
    const { responseUrl } = await command(rig, `promo ${promo.eventId} ${promo.code} 12`);
    const proposal = await answerTo(rig, responseUrl);
    expect(blocksText(proposal)).toContain(promo.id);
    // A code's id does not change (the check named it), but the old check's quantity is not the
    // quantity now: a report is read for it, in the person's turn, and shown before they confirm.
    expect(blocksText(proposal)).toContain(`\`${promo.code}\` on`);
    expect(blocksText(proposal)).toContain(`${promo.quantity} → 12`);
    expect(reportCalls(rig)).toBe(before + 1);
  });
});
