import { afterEach, describe, expect, it } from 'vitest';
import { type BotRig, startBot } from '../helpers/bot.js';
import { answerTo, blocksText, click, command, type Json, nthResponse, responsesTo } from '../helpers/bot-actions.js';

let rig: BotRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** Two upcoming events whose names both hold "festival": any command by that word is a "which one?". */
function twoFestivals(r: BotRig) {
  const [rock, lights] = r.sim.catalog.events.filter(
    (event) => event.status === 'published' && event.startsAtMs > Date.now() + 86_400_000,
  );
  if (!rock || !lights) throw new Error('not enough upcoming events');
  rock.name = 'Rock & Roll Festival';
  lights.name = 'Festival of Lights';
  return { rock, lights };
}

/** Every button of a message, in sections and in actions blocks. */
const buttonsOf = (message: Json): Json[] =>
  ((message.blocks ?? []) as Json[])
    .flatMap((block) => [block.accessory, ...((block.elements ?? []) as unknown[])] as (Json | undefined)[])
    .filter((each): each is Json => each?.type === 'button');

/** The button of a "which one?" list that picks `eventId`: its action id and value. */
function choiceFor(message: Json, eventId: string): { actionId: string; value: string } {
  const button = buttonsOf(message).find((each) => String(each.value).includes(eventId));
  if (button) return { actionId: String(button.action_id), value: String(button.value) };
  throw new Error(`no choice for ${eventId} in ${blocksText(message)}`);
}

describe('a "which one?" list loses its buttons once one is used', () => {
  it.each([
    ['show', 'show festival'],
    ['watch', 'watch festival: sold out'],
    ['promo', 'promo festival STAFF 5'],
  ])('%s: the pick replaces the list, and no other choice is left to click', async (_kind, text) => {
    rig = await startBot();
    const r = rig;
    const { rock, lights } = twoFestivals(r);
    const { responseUrl } = await command(r, text);
    const choices = await nthResponse(r, responseUrl);
    expect(blocksText(choices)).toContain(lights.id);
    const { actionId, value } = choiceFor(choices, rock.id);
    const picked = await click(r, actionId, value);
    // A "fetching" notice may come first: each post replaces the one before, so the list is gone.
    const answer = await answerTo(r, picked.responseUrl);
    expect(answer).toBeDefined();
    for (const call of responsesTo(r, picked.responseUrl)) {
      expect(call.args.replace_original).toBe(true);
      expect(JSON.stringify(call.args)).not.toContain(lights.id);
      expect(buttonsOf(call.args).filter((button) => button.action_id === actionId)).toEqual([]);
    }
  });
});
