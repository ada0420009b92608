import { afterEach, describe, expect, it } from 'vitest';
import { resolveEvent } from '../../src/catalog/find-events.js';
import type { SimEvent } from '../../src/simulator/seed.js';
import { type BotRig, startBot } from '../helpers/bot.js';
import { answerTo, blocksText, command, reportCalls } from '../helpers/bot-actions.js';

let rig: BotRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/**
 * A published event with a promo code whose whole name (of several words) finds it alone, while
 * its name without the last word is read as the event: `/events promo <name> 10` leaves the code out.
 */
async function namedEventWithPromo(r: BotRig): Promise<{ event: SimEvent; code: string }> {
  for (const promo of r.sim.catalog.promos) {
    const event = r.sim.catalog.events.find((e) => e.id === promo.eventId);
    if (event?.status !== 'published' || event.startsAtMs < Date.now() + 86_400_000) continue;
    const words = event.name.split(' ');
    const last = words.at(-1) ?? '';
    if (words.length < 3 || !/^[A-Za-z]+$/.test(last)) continue;
    const whole = await resolveEvent(r.bot.catalog, { words: event.name });
    if (whole.kind === 'found' && whole.event.id === event.id) return { event, code: promo.code };
  }
  throw new Error('no event of several words with a promo code');
}

describe('/events promo with the code left out', () => {
  it('says the code is missing and what to type, when no code is known yet (no report call)', async () => {
    rig = await startBot();
    const { event } = await namedEventWithPromo(rig);
    const { responseUrl } = await command(rig, `promo ${event.name} 10`);
    const answer = blocksText(await answerTo(rig, responseUrl));
    expect(answer).toContain('promo code is missing');
    expect(answer).toContain(`/events promo ${event.name} &lt;CODE&gt; 10`);
    expect(answer).not.toContain('match');
    expect(reportCalls(rig)).toBe(0);
  });

  it('asks which code, listing the event’s known codes, with no report call', async () => {
    rig = await startBot();
    const { event, code } = await namedEventWithPromo(rig);
    // A change by id reads the event's report: its codes are known from then on.
    await answerTo(rig, (await command(rig, `promo ${event.id} ${code} 5`)).responseUrl);
    const before = reportCalls(rig);
    const { responseUrl } = await command(rig, `promo ${event.name} 10`);
    const answer = blocksText(await answerTo(rig, responseUrl));
    expect(answer).toContain('which code of');
    expect(answer).toContain(`\`${code}\``);
    expect(answer).toContain(`/events promo ${event.name}`);
    expect(reportCalls(rig)).toBe(before);
  });

  it('goes on as typed when the last word is a code known for the event', async () => {
    rig = await startBot();
    const { event, code } = await namedEventWithPromo(rig);
    await answerTo(rig, (await command(rig, `promo ${event.id} ${code} 5`)).responseUrl);
    const { responseUrl } = await command(rig, `promo ${event.name} ${code} 7`);
    const answer = blocksText(await answerTo(rig, responseUrl));
    expect(answer).not.toContain('promo code is missing');
  });

  it('goes on as typed when the code is also a word of the event’s name, with no code known yet', async () => {
    rig = await startBot();
    const r = rig;
    const { event, code } = await namedEventWithPromo(r);
    // The event really has a code named like the first word of its name (GALA on "Gala Night").
    const word = (event.name.split(' ')[0] as string).toUpperCase();
    const promo = r.sim.catalog.promos.find((each) => each.eventId === event.id && each.code === code);
    if (!promo) throw new Error('the code vanished');
    promo.code = word;
    const { responseUrl } = await command(r, `promo ${event.name} ${word} 10`);
    const answer = blocksText(await answerTo(r, responseUrl));
    expect(answer).not.toContain('promo code is missing');
    expect(answer).toContain(word);
    expect(reportCalls(r)).toBeGreaterThan(0);
  });
});
