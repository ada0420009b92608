import { afterEach, describe, expect, it } from 'vitest';
import { type BotRig, startBot } from '../helpers/bot.js';
import { blocksText, command, nthResponse } from '../helpers/bot-actions.js';

let rig: BotRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

describe('answers that are right', () => {
  it('find says how many match in all and lists upcoming ones first', async () => {
    rig = await startBot();
    const now = Date.now();
    const past = rig.sim.catalog.events.filter((event) => event.startsAtMs < now - 3 * 86_400_000);
    // Cancelled events are not upcoming, however soon they were to start.
    const upcoming = rig.sim.catalog.events.filter(
      (event) => event.startsAtMs > now + 3_600_000 && event.status !== 'cancelled',
    );
    const pastGala = past[0];
    if (!pastGala || upcoming.length < 12) throw new Error('the seed has no past event or too few upcoming ones');
    pastGala.name = 'Quokkafest Quokkafest';
    upcoming.slice(0, 12).forEach((event, i) => {
      event.name = `Quokkafest ${i + 1}`;
    });
    const { responseUrl } = await command(rig, 'find quokkafest');
    const answer = await nthResponse(rig, responseUrl);
    expect(String(answer.text)).toContain('13 events match "quokkafest"');
    expect(blocksText(answer)).toContain('12 upcoming');
    // The best-scoring name is over: it comes after the upcoming ones, if it is shown at all.
    const ids = [...blocksText(answer).matchAll(/evt_[0-9a-f-]{36}/g)].map((m) => m[0]);
    expect(ids[0]).not.toBe(pastGala.id);
  });

  it('offers an unknown word after list as a search, saying so, with the ranges that exist', async () => {
    rig = await startBot();
    const { responseUrl } = await command(rig, 'list nextweek');
    const answer = JSON.stringify(await nthResponse(rig, responseUrl));
    expect(answer).toContain('not a range');
    expect(answer).toContain('`/events list today`, `/events list tomorrow` or `/events list week`');
    expect(answer).toContain('searched for');
  });

  it('digest status after digest now gives the next day’s run, and the last run in the reader’s zone', async () => {
    rig = await startBot();
    // A zone where it is about 10:00 now, and a digest at 12:00 there: today's run is still to come.
    const utcHour = new Date().getUTCHours();
    const offset = ((10 - utcHour + 36) % 24) - 12;
    const zone = offset >= 0 ? `Etc/GMT-${offset}` : `Etc/GMT+${-offset}`;
    await nthResponse(rig, (await command(rig, `digest on 12:00 ${zone}`)).responseUrl);
    await nthResponse(rig, (await command(rig, 'digest now')).responseUrl);
    const status = JSON.stringify(await nthResponse(rig, (await command(rig, 'digest status')).responseUrl));
    const found = await rig.bot.digests.status('C0001');
    expect(found?.next.at ?? 0).toBeGreaterThan(Date.now() + 20 * 3_600_000);
    expect(status).toMatch(/Last run: \d{4}-\d{2}-\d{2}: sent at <!date\^\d+\^/);
    expect(status).not.toMatch(/Last run:[^•<]*UTC/);
    expect(status).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
  });
});
