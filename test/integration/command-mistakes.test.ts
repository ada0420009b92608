import { afterEach, describe, expect, it } from 'vitest';
import { type BotRig, startBot } from '../helpers/bot.js';
import { blocksText, command, nthResponse } from '../helpers/bot-actions.js';

let rig: BotRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/**
 * Mistakes a person makes typing `/events`, `EVENT` standing for an upcoming event's id: each
 * answer must name what to type (an example or the usage line, in code), not only what was wrong.
 */
const MISTAKES = [
  'shwo EVENT',
  'frobnicate',
  'show',
  'find',
  'unwatch',
  'forecast nonsense',
  'promo EVENT EARLYBIRD',
  'promo EVENT EARLYBIRD -5',
  'promo EVENT EARLYBIRD lots',
  'promo EVENT 5',
  'watch EVENT: sold >= lots',
  'watch EVENT: bogus',
  'watch EVENT: sold >= 90% --every 5',
  'digest sometimes',
  'digest of',
  'digest on 25:00',
  'digest on 08:00 Mars/Olympus',
  'digest on --days 99',
  'digest on --weekdays funday',
  'digest off extra',
  'watches thread-only maybe',
  'show zzzqqq xxyyzz',
  'report zzzqqq xxyyzz',
  'unwatch zzzqqq xxyyzz',
  'promo zzzqqq xxyyzz EARLYBIRD 5',
  'watch zzzqqq xxyyzz: sold >= 90%',
  'digest on --sales monthly',
  'digest on --sales --days 3',
  'digest on --frequently',
  'watches --you',
  'watch EVENT --except',
  'list --tomorrow',
  'forecast',
  'help me please',
];

describe('/events: every mistake answers with what to type', () => {
  it('names a `/events ...` line in the answer to each of the mistakes', async () => {
    rig = await startBot();
    const r = rig;
    const event = r.sim.catalog.events.find(
      (each) => each.status === 'published' && Date.parse(each.startDate) > Date.now() + 86_400_000,
    )?.id as string;
    const missing: string[] = [];
    for (const mistake of MISTAKES) {
      const text = mistake.replace('EVENT', event);
      const answer = blocksText(await nthResponse(r, (await command(r, text)).responseUrl));
      if (!/`\/events [^`]+`/.test(answer)) missing.push(`/events ${text} → ${answer.slice(0, 300)}`);
    }
    expect(missing).toEqual([]);
  });
});
