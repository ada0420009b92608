import { afterEach, describe, expect, it } from 'vitest';
import { NEXT_PAGE_ACTION, PREVIOUS_PAGE_ACTION } from '../../src/render/event-blocks.js';
import { type BotRig, startBot } from '../helpers/bot.js';
import { blocksText, buttonValue, click, command, type Json, nthResponse } from '../helpers/bot-actions.js';

/*
 * `find` put cancelled events last with "2 cancelled" in its header, but no row said which were;
 * and `/events list` had Next and no Previous. The real bot over signed requests.
 */

let rig: BotRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** The rows of a `find` answer: each section with a button, as its text. */
const rows = (message: Json) =>
  ((message.blocks ?? []) as Json[])
    .filter((block) => block.type === 'section' && block.accessory)
    .map((block) => String((block.text as Json).text));

/** The events a page lists, in order, by their ids. */
const idsOn = (message: Json) => [...new Set([...blocksText(message).matchAll(/evt_[0-9a-f-]{36}/g)].map((m) => m[0]))];

describe('/events find', () => {
  it('labels each cancelled row, not only the count in its header', async () => {
    rig = await startBot();
    const upcoming = rig.sim.catalog.events.filter(
      (event) => event.status === 'published' && event.startsAtMs > Date.now() + 86_400_000,
    );
    const cancelled = rig.sim.catalog.events.filter((event) => event.status === 'cancelled');
    const named = [...upcoming.slice(0, 2), ...cancelled.slice(0, 2)];
    if (named.length < 4) throw new Error('the seed has two upcoming and two cancelled events');
    for (const event of rig.sim.catalog.events) event.name = `Event ${event.id}`;
    for (const [index, event] of named.entries()) event.name = `Harbour Lights ${index}`;
    const answer = await nthResponse(rig, (await command(rig, 'find harbour lights')).responseUrl);
    expect(blocksText(answer)).toContain('2 cancelled');
    const shown = rows(answer);
    expect(shown).toHaveLength(4);
    for (const row of shown) {
      const isCancelled = cancelled.some((event) => row.includes(`Harbour Lights ${named.indexOf(event)}`));
      expect(row.includes(':no_entry: *Cancelled*'), row).toBe(isCancelled);
    }
  });
});

describe('/events list', () => {
  it('pages both ways: Previous on page 2 brings back page 1; page 1 has no Previous', async () => {
    rig = await startBot();
    const first = await nthResponse(rig, (await command(rig, 'list')).responseUrl);
    expect(blocksText(first)).not.toContain(PREVIOUS_PAGE_ACTION);
    const next = await click(rig, NEXT_PAGE_ACTION, buttonValue(first, NEXT_PAGE_ACTION));
    const second = await nthResponse(rig, next.responseUrl);
    expect(idsOn(second)).not.toEqual(idsOn(first));
    const previous = await click(rig, PREVIOUS_PAGE_ACTION, buttonValue(second, PREVIOUS_PAGE_ACTION));
    const back = await nthResponse(rig, previous.responseUrl);
    expect(back.replace_original).toBe(true);
    expect(idsOn(back)).toEqual(idsOn(first));
    expect(blocksText(back)).not.toContain(PREVIOUS_PAGE_ACTION);
    expect(blocksText(back)).toContain(NEXT_PAGE_ACTION);
  });
});
