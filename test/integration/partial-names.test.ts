import { afterEach, describe, expect, it } from 'vitest';
import { EVENT_PICKER_ACTION, FIELDS, PROMO_MODAL, REPORT_MODAL } from '../../src/render/modal-views.js';
import { type BotRig, SIGNING_SECRET, startBot } from '../helpers/bot.js';
import { blocksText, command, nthResponse } from '../helpers/bot-actions.js';
import { blockSuggestionBody, postSigned } from '../helpers/slack-requests.js';

/*
 * "winter" found 15 events, "winter g", "northern fi" and "jazz ni" an empty box with no word: the
 * last word, still being typed, was taken as a prefix only from three letters. And a picker whose
 * words matched nothing answered an empty list, with no "no event matches" nor the names near.
 */

let rig: BotRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** Names upcoming events as issue 44's report typed them, one more of each first word, and the rest plainly. */
function nameEvents(r: BotRig) {
  const upcoming = r.sim.catalog.events.filter(
    (event) => event.status === 'published' && event.startsAtMs > Date.now() + 3_600_000,
  );
  const names = ['Winter Gala', 'Winter Market', 'Northern Film Night', 'Northern Lights', 'Jazz Night', 'Jazz Brunch'];
  if (upcoming.length < names.length) throw new Error('not enough upcoming events');
  // No other event's name is near these words, so what a search finds is what this test named.
  for (const [index, event] of r.sim.catalog.events.entries()) event.name = `Event ${index}`;
  return Object.fromEntries(
    names.map((name, index) => {
      const event = upcoming[index] as (typeof upcoming)[number];
      event.name = name;
      return [name, event];
    }),
  );
}

type Options = {
  options?: { value: string; text: { text: string } }[];
  option_groups?: { label: { text: string }; options: { value: string; text: { text: string } }[] }[];
};

const typeahead = async (r: BotRig, value: string, callbackId = PROMO_MODAL): Promise<Options> => {
  const answer = await postSigned(
    r.url,
    SIGNING_SECRET,
    blockSuggestionBody({ actionId: EVENT_PICKER_ACTION, blockId: FIELDS.event.block, value, callbackId }),
  );
  return JSON.parse(answer.text) as Options;
};

describe('a half-typed last word', () => {
  it('finds the events it begins, in /events find and /events report', async () => {
    rig = await startBot();
    const named = nameEvents(rig);
    const find = async (words: string) =>
      blocksText(await nthResponse(rig as BotRig, (await command(rig as BotRig, `find ${words}`)).responseUrl));
    for (const [words, found, notFound] of [
      ['winter g', 'Winter Gala', 'Winter Market'],
      ['northern fi', 'Northern Film Night', 'Northern Lights'],
      ['jazz ni', 'Jazz Night', 'Jazz Brunch'],
    ] as const) {
      const answer = await find(words);
      expect(answer, words).toContain(named[found]?.id);
      expect(answer, words).not.toContain(named[notFound]?.id);
    }
    // A report by half a name goes ahead on the one event it names.
    await command(rig, 'report winter g');
    const slack = rig.slack;
    const final = await slack.waitFor(() =>
      slack.calls.find((c) => c.method === 'chat.update' && JSON.stringify(c.args.blocks).includes('Report: ')),
    );
    expect(JSON.stringify(final.args.blocks)).toContain('Winter Gala');
  });

  it('is offered by the event pickers, the promo form and the report form', async () => {
    rig = await startBot();
    const named = nameEvents(rig);
    for (const callbackId of [PROMO_MODAL, REPORT_MODAL]) {
      const answer = await typeahead(rig, 'jazz ni', callbackId);
      expect(answer.options?.map((option) => option.value)).toEqual([named['Jazz Night']?.id]);
    }
  });
});

describe('words that match no event', () => {
  it('the picker says so, over the names that come closest', async () => {
    rig = await startBot();
    const named = nameEvents(rig);
    const answer = await typeahead(rig, 'winter opera');
    expect(answer.options).toBeUndefined();
    const [group] = answer.option_groups ?? [];
    expect(group?.label.text).toBe('No event matches "winter opera". Did you mean:');
    expect(group?.label.text.length).toBeLessThanOrEqual(75);
    expect(group?.options.map((option) => option.value)).toContain(named['Winter Gala']?.id);
    // Nothing near: an empty list (Slack says "No results" itself).
    expect(await typeahead(rig, 'qqqq zzzz')).toEqual({ options: [] });
  });

  it('/events find says so and offers the nearest names', async () => {
    rig = await startBot();
    nameEvents(rig);
    const answer = blocksText(await nthResponse(rig, (await command(rig, 'find winter opera')).responseUrl));
    expect(answer).toContain('No event matches');
    expect(answer).toContain('Did you mean');
    expect(answer).toContain('Winter Gala');
  });
});
