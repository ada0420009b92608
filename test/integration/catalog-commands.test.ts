import { afterEach, describe, expect, it } from 'vitest';
import { FINISH_COMMAND_ACTION, PICK_SHOW_ACTION } from '../../src/render/event-blocks.js';
import {
  CHANGE_PROMO_SHORTCUT,
  EVENT_PICKER_ACTION,
  FIELDS,
  PROMO_MODAL,
  REPORT_MODAL,
} from '../../src/render/modal-views.js';
import { PROMO_CONFIRM_ACTION } from '../../src/render/promo-blocks.js';
import { addDays, plainDateAt, startOfDay } from '../../src/time/zoned.js';
import { type BotRig, SIGNING_SECRET, startBot } from '../helpers/bot.js';
import { blocksText, buttonValue, click, command, type Json, nthResponse } from '../helpers/bot-actions.js';
import { blockSuggestionBody, postSigned, shortcutBody, viewSubmissionBody } from '../helpers/slack-requests.js';

let rig: BotRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** Names three upcoming events so the tests can find them by words. */
function nameEvents(r: BotRig) {
  // Published ones only: a cancelled or draft event is left out of lists and searches, and which
  // events come first after now depends on the time of day.
  const upcoming = r.sim.catalog.events.filter(
    (event) => event.status === 'published' && event.startsAtMs > Date.now() + 3_600_000,
  );
  const [jazz, rock, lights] = upcoming;
  if (!jazz || !rock || !lights) throw new Error('not enough upcoming events');
  jazz.name = 'Jazz Night at the Café Müller';
  rock.name = 'Rock & Roll Festival';
  lights.name = 'Festival of Lights';
  return { jazz, rock, lights };
}

const NEW_YORK = 'America/New_York';

const sent = (r: BotRig, method: string) => r.slack.calls.filter((call) => call.method === method);

describe('events by name', () => {
  it('shows the one event whose name matches, with accents and words in any order', async () => {
    rig = await startBot();
    const { jazz } = nameEvents(rig);
    const { responseUrl } = await command(rig, 'show muller CAFE jazz');
    const card = await nthResponse(rig, responseUrl);
    expect(blocksText(card)).toContain(jazz.id);
    // One event's card: its footer says how fresh its details are, not "Event list" (issue 42).
    expect(blocksText(card)).toContain('Details as of');
    expect(blocksText(card)).not.toContain('Event list as of');
  });

  it('offers a short list with buttons when several match, and the button shows the card', async () => {
    rig = await startBot();
    const { rock, lights } = nameEvents(rig);
    const { responseUrl } = await command(rig, 'show festivl');
    const choices = await nthResponse(rig, responseUrl);
    expect(blocksText(choices)).toContain('events match');
    expect(blocksText(choices)).toContain(rock.id);
    expect(blocksText(choices)).toContain(lights.id);
    const picked = await click(rig, PICK_SHOW_ACTION, lights.id);
    const card = await nthResponse(rig, picked.responseUrl);
    expect(card.replace_original).toBe(true);
    expect(blocksText(card)).toContain('Festival of Lights');
  });

  it('requests the report of an event picked from a choice', async () => {
    rig = await startBot();
    const { rock } = nameEvents(rig);
    const { responseUrl } = await command(rig, 'report festival');
    const choices = await nthResponse(rig, responseUrl);
    // The button finishes the command with its event: `report <id>`, parsed again when clicked.
    const button = ((choices.blocks ?? []) as Json[])
      .map((block) => block.accessory as Json | undefined)
      .find((each) => each?.action_id === FINISH_COMMAND_ACTION && String(each.value).includes(rock.id));
    expect(button?.value).toBe(`report ${rock.id}`);
    await click(rig, FINISH_COMMAND_ACTION, String(button?.value));
    const slack = rig.slack;
    const final = await slack.waitFor(() =>
      slack.calls.find((c) => c.method === 'chat.update' && JSON.stringify(c.args.blocks).includes('Report: ')),
    );
    expect(JSON.stringify(final.args.blocks)).toContain('Rock &amp; Roll Festival');
  });

  it("takes a used choice's buttons away, and titles the report's file by the event's name", async () => {
    rig = await startBot();
    const { rock } = nameEvents(rig);
    const { responseUrl } = await command(rig, 'report festival');
    const choices = await nthResponse(rig, responseUrl);
    const value = ((choices.blocks ?? []) as Json[])
      .map((block) => block.accessory as Json | undefined)
      .find((each) => each?.action_id === FINISH_COMMAND_ACTION && String(each.value).includes(rock.id))?.value;
    const picked = await click(rig, FINISH_COMMAND_ACTION, String(value));
    const replaced = await nthResponse(rig, picked.responseUrl);
    expect(replaced.replace_original).toBe(true);
    expect(blocksText(replaced)).not.toContain(FINISH_COMMAND_ACTION);
    const slack = rig.slack;
    const upload = await slack.waitFor(() => slack.calls.find((c) => c.method === 'files.completeUploadExternal'));
    expect(JSON.stringify(upload.args.files)).toContain('Rock & Roll Festival');
    expect(JSON.stringify(upload.args.files)).not.toContain(`Report ${rock.id}`);
  });

  it('says so when nothing matches, and finds by words', async () => {
    rig = await startBot();
    nameEvents(rig);
    const none = await command(rig, 'show opera gala');
    expect(String((await nthResponse(rig, none.responseUrl)).text)).toContain('No event matches `opera gala`');
    const found = await command(rig, 'find jazz');
    expect(blocksText(await nthResponse(rig, found.responseUrl))).toContain('Jazz Night at the Café Müller');
  });

  it('answers every lookup of the same period from one crawl', async () => {
    rig = await startBot({ sim: { eventCount: 300 } });
    const ids = rig.sim.catalog.events.slice(0, 5).map((event) => event.id);
    for (const id of [...ids, '00000000-0000-4000-8000-000000000000']) {
      const { responseUrl } = await command(rig, `show ${id}`);
      await nthResponse(rig, responseUrl);
    }
    expect(rig.sim.stats().requests).toBe(3);
  });

  it('lists today only, in the reader timezone, and by words', async () => {
    rig = await startBot();
    const { jazz } = nameEvents(rig);
    const today = await command(rig, 'list today');
    const answer = await nthResponse(rig, today.responseUrl);
    expect(blocksText(answer)).toContain('Upcoming events today');
    // The fake Slack says the reader is in New York: nothing shown starts after today ends there
    // (its own offset, summer time included).
    const tomorrowThere = startOfDay(addDays(plainDateAt(Date.now(), NEW_YORK), 1), NEW_YORK);
    const shown = [...blocksText(answer).matchAll(/evt_[0-9a-f-]{36}/g)].map((m) => m[0]);
    for (const id of shown) {
      const event = rig.sim.catalog.events.find((each) => each.id === id);
      expect(event?.startsAtMs ?? 0).toBeLessThan(tomorrowThere + 14 * 3_600_000);
    }
    const byWords = await command(rig, 'list cafe muller');
    const jazzList = blocksText(await nthResponse(rig, byWords.responseUrl));
    expect(jazzList).toContain(jazz.id);
    // One event, however many of its buttons carry its id.
    expect(new Set([...jazzList.matchAll(/evt_[0-9a-f-]{36}/g)].map((m) => m[0])).size).toBe(1);
  });
});

describe('modals and the event picker', () => {
  const submit = (r: BotRig, body: string) => postSigned(r.url, SIGNING_SECRET, body);
  /** What the promo modal's inputs hold when it is submitted. */
  const promoValues = (eventId: string, promoId: string, quantity: string) => ({
    [FIELDS.event.block]: {
      [FIELDS.event.action]: { type: 'external_select', selected_option: eventId ? { value: eventId } : null },
    },
    [FIELDS.promo.block]: { [FIELDS.promo.action]: { type: 'plain_text_input', value: promoId } },
    [FIELDS.quantity.block]: { [FIELDS.quantity.action]: { type: 'number_input', value: quantity } },
  });

  it('opens the promo modal for /events promo, answers typeahead from the catalog, and shows field errors', async () => {
    rig = await startBot();
    const { jazz } = nameEvents(rig);
    await command(rig, 'promo');
    const opened = await rig.slack.waitFor(() => sent(rig as BotRig, 'views.open')[0]);
    const view = opened.args.view as Json;
    expect(view.callback_id).toBe(PROMO_MODAL);
    expect(JSON.stringify(view.blocks)).toContain('number_input');

    const typed = await submit(
      rig,
      blockSuggestionBody({ actionId: EVENT_PICKER_ACTION, blockId: 'event', value: 'jaz cafe' }),
    );
    const options = (JSON.parse(typed.text) as { options: { text: { text: string }; value: string }[] }).options;
    expect(options[0]?.value).toBe(jazz.id);
    expect(options.every((option) => option.text.text.length <= 75)).toBe(true);
    // Past the search limit the picker offers nothing, rather than matching a cut-off prefix.
    const tooLong = await submit(
      rig,
      blockSuggestionBody({ actionId: EVENT_PICKER_ACTION, blockId: 'event', value: `jaz cafe${' '.repeat(200)}` }),
    );
    expect((JSON.parse(tooLong.text) as { options: unknown[] }).options).toEqual([]);

    const invalid = await submit(
      rig,
      viewSubmissionBody({
        callbackId: PROMO_MODAL,
        privateMetadata: String(view.private_metadata),
        values: promoValues('', 'evt_nope', '1,000'),
      }),
    );
    const errors = JSON.parse(invalid.text) as { response_action: string; errors: Record<string, string> };
    expect(errors.response_action).toBe('errors');
    expect(Object.keys(errors.errors).sort()).toEqual(['event', 'promo', 'quantity']);
    expect(errors.errors.quantity).toContain('without separators');
    expect(rig.sim.stats().log.filter((entry) => entry.method === 'POST')).toHaveLength(0);
  });

  it('turns a valid promo modal into the same confirmation, then the same audited change', async () => {
    rig = await startBot();
    const promo = rig.sim.catalog.promos[0];
    if (!promo) throw new Error('no promo');
    await command(rig, 'promo');
    const opened = await rig.slack.waitFor(() => sent(rig as BotRig, 'views.open')[0]);
    await submit(
      rig,
      viewSubmissionBody({
        callbackId: PROMO_MODAL,
        privateMetadata: String((opened.args.view as Json).private_metadata),
        values: promoValues(promo.eventId, promo.id.slice(6), '64'),
      }),
    );
    const ephemeral = await rig.slack.waitFor(() => sent(rig as BotRig, 'chat.postEphemeral')[0]);
    expect(ephemeral.args).toMatchObject({ channel: 'C0001', user: 'U0EDITOR' });
    const confirm = await click(rig, PROMO_CONFIRM_ACTION, buttonValue(ephemeral.args, PROMO_CONFIRM_ACTION));
    expect(blocksText(await nthResponse(rig, confirm.responseUrl))).toContain('now allows *64*');
    expect(promo.quantity).toBe(64);
    expect((await rig.bot.activity.promoAudit())[0]).toMatchObject({ outcome: 'updated', quantity: 64 });
  });

  it('opens the same modal from the global shortcut and answers it by direct message', async () => {
    rig = await startBot();
    const promo = rig.sim.catalog.promos[1];
    if (!promo) throw new Error('no promo');
    await submit(rig, shortcutBody({ callbackId: CHANGE_PROMO_SHORTCUT }));
    const opened = await rig.slack.waitFor(() => sent(rig as BotRig, 'views.open')[0]);
    expect((opened.args.view as Json).callback_id).toBe(PROMO_MODAL);
    await submit(
      rig,
      viewSubmissionBody({
        callbackId: PROMO_MODAL,
        privateMetadata: String((opened.args.view as Json).private_metadata),
        values: promoValues(promo.eventId, promo.id, '9'),
      }),
    );
    const dm = await rig.slack.waitFor(() =>
      sent(rig as BotRig, 'chat.postMessage').find((c) => c.args.channel === 'U0EDITOR'),
    );
    expect(JSON.stringify(dm.args.blocks)).toContain(PROMO_CONFIRM_ACTION);

    // Confirmed in the DM: changed, and said plainly that it was announced nowhere (issue 42).
    const posted = sent(rig, 'chat.postMessage').length;
    const confirmed = await click(rig, PROMO_CONFIRM_ACTION, buttonValue(dm.args, PROMO_CONFIRM_ACTION), 'U0EDITOR', {
      channelId: 'D0EDITOR',
    });
    const result = blocksText(await nthResponse(rig, confirmed.responseUrl));
    expect(result).toContain('now allows *9* redemptions');
    expect(result).toContain('Not announced: it was changed from the shortcut, outside any channel');
    expect(result).not.toContain('invite me');
    expect(sent(rig, 'chat.postMessage')).toHaveLength(posted);
    expect(promo.quantity).toBe(9);
  });

  it('requests a report picked in the report modal', async () => {
    rig = await startBot();
    const event = rig.sim.catalog.events[0];
    if (!event) throw new Error('no event');
    await command(rig, 'report');
    const opened = await rig.slack.waitFor(() => sent(rig as BotRig, 'views.open')[0]);
    expect((opened.args.view as Json).callback_id).toBe(REPORT_MODAL);
    await submit(
      rig,
      viewSubmissionBody({
        callbackId: REPORT_MODAL,
        privateMetadata: String((opened.args.view as Json).private_metadata),
        values: {
          [FIELDS.event.block]: {
            [FIELDS.event.action]: { type: 'external_select', selected_option: { value: event.id } },
          },
        },
      }),
    );
    const slack = rig.slack;
    const final = await slack.waitFor(() =>
      slack.calls.find((c) => c.method === 'chat.update' && JSON.stringify(c.args.blocks).includes('Tickets sold')),
    );
    expect(final.args.channel).toBe('C0001');
  });
});
