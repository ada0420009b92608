import { afterEach, describe, expect, it } from 'vitest';
import * as eventBlocks from '../../src/render/event-blocks.js';
import { PICK_REPORT_ACTION, PROMO_FOR_EVENT_ACTION } from '../../src/render/event-blocks.js';
import { WATCH_MODAL } from '../../src/render/modal-views.js';
import type { SimEvent } from '../../src/simulator/seed.js';
import { type BotRig, startBot } from '../helpers/bot.js';
import {
  answerTo as answer,
  blocksText,
  click as clickButton,
  type Json,
  nthResponse,
  command as sendCommand,
} from '../helpers/bot-actions.js';

/*
 * Issue 29 item 2: every list of choices leads on. An ambiguous name in watch, unwatch, report
 * and promo offers buttons that finish that command; unwatch picks the watched one; event cards
 * carry Report and Watch (and Promo for editors) and name the event once.
 */

// Read through the module so that a missing export fails the assertions, not the import.
const FINISH = (eventBlocks as Record<string, unknown>).FINISH_COMMAND_ACTION as string;
const WATCH_CARD = (eventBlocks as Record<string, unknown>).WATCH_FOR_EVENT_ACTION as string;

let rig: BotRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** `/events <text>`, signed (in C0001 unless said); its response_url. */
const command = async (r: BotRig, text: string, user = 'U0EDITOR', channel = 'C0001') =>
  (await sendCommand(r, text, user, channel)).responseUrl;

/** A click of a button carrying `value`, signed (in C0001 unless said); its response_url. */
const click = async (r: BotRig, actionId: string, value: string, user = 'U0EDITOR', channel = 'C0001') =>
  (await clickButton(r, actionId, value, user, { channelId: channel })).responseUrl;

/** Two upcoming published events named alike, so their words match both. */
function twoParades(r: BotRig): { north: SimEvent; south: SimEvent } {
  const now = Date.now();
  const [north, south] = r.sim.catalog.events.filter(
    (event) =>
      event.status === 'published' &&
      event.startsAtMs > now + 86_400_000 &&
      r.sim.catalog.promos.some((p) => p.eventId === event.id),
  );
  if (!north || !south) throw new Error('not enough upcoming events');
  north.name = 'Quokka Parade North';
  south.name = 'Quokka Parade South';
  return { north, south };
}

/** Every button in a message, wherever it sits (an accessory or an actions block). */
function buttons(message: Json): Json[] {
  const found: Json[] = [];
  for (const block of (message.blocks ?? []) as Json[]) {
    const accessory = block.accessory as Json | undefined;
    if (accessory?.type === 'button') found.push(accessory);
    for (const element of (block.elements ?? []) as Json[]) if (element.type === 'button') found.push(element);
  }
  return found;
}

const finishButtons = (message: Json) => buttons(message).filter((button) => button.action_id === FINISH);
const buttonFor = (message: Json, eventId: string) => {
  const button = finishButtons(message).find((each) => String(each.value).includes(eventId));
  if (!button) throw new Error(`no button for ${eventId} in ${blocksText(message)}`);
  return String(button.value);
};

describe('/events watch with a name several events match', () => {
  it('offers Watch buttons carrying the conditions; a click sets the watch where and by whom it was clicked', async () => {
    rig = await startBot();
    const r = rig;
    const { north, south } = twoParades(r);
    const choices = await nthResponse(r, await command(r, 'watch quokka parade: sold >= 90%'));
    expect(blocksText(choices)).not.toContain('by its id');
    expect(finishButtons(choices)).toHaveLength(2);
    expect(finishButtons(choices).map((button) => (button.text as Json).text)).toEqual(['Watch', 'Watch']);
    const value = buttonFor(choices, south.id);
    expect(value).toContain('sold >= 90%');
    expect(value).not.toContain(north.id);
    // Clicked by someone else in another channel: the click says who and where, not the value.
    const done = await answer(r, await click(r, FINISH, value, 'U0ALICE', 'C0002'));
    expect(done.replace_original).toBe(true);
    expect(JSON.stringify(done)).toContain('Quokka Parade South');
    const here = await r.bot.watches.list({ channel: 'C0002' });
    expect(here.map(({ watch }) => [watch.eventId, watch.setBy, watch.personal])).toEqual([
      [south.id, 'U0ALICE', false],
    ]);
    expect(here[0]?.watch.conditions.map((state) => state.key)).toEqual(['sold >= 90%']);
    expect(await r.bot.watches.list({ channel: 'C0001' })).toEqual([]);
  });

  it('carries --me: the watch is set for the person who clicked, in their DM', async () => {
    rig = await startBot();
    const r = rig;
    const { north } = twoParades(r);
    const choices = await nthResponse(r, await command(r, 'watch quokka parade when sold >= 80% --me', 'U0ALICE'));
    const value = buttonFor(choices, north.id);
    expect(value).toContain('--me');
    await answer(r, await click(r, FINISH, value, 'U0BOB', 'C0002'));
    const mine = await r.bot.watches.list({ channel: 'U0BOB' });
    expect(mine.map(({ watch }) => [watch.eventId, watch.personal])).toEqual([[north.id, true]]);
    expect(await r.bot.watches.list({ channel: 'C0002' })).toEqual([]);
    expect(await r.bot.watches.list({ channel: 'U0ALICE' })).toEqual([]);
  });

  it('checks what a button carries again as if typed: conditions, the editor, and only the commands a choice finishes', async () => {
    rig = await startBot();
    const r = rig;
    const { north } = twoParades(r);
    const misspelt = await answer(r, await click(r, FINISH, `watch ${north.id}: sold >== lots`));
    expect(JSON.stringify(misspelt)).toContain('/events watch');
    expect(await r.bot.watches.list({ channel: 'C0001' })).toEqual([]);
    const promo = r.sim.catalog.promos.find((p) => p.eventId === north.id);
    const notEditor = await answer(r, await click(r, FINISH, `promo ${north.id} ${promo?.code} 5`, 'U0NOBODY'));
    expect(JSON.stringify(notEditor)).toContain('Only promo editors');
    const other = await answer(r, await click(r, FINISH, 'digest off'));
    expect(JSON.stringify(other)).toContain('type the command again');
    expect(r.slack.calls.filter((call) => call.method === 'chat.postMessage')).toHaveLength(0);
  });
});

describe('/events unwatch with a name several events match', () => {
  it('stops the one of them watched here, says none is when none is, and offers the watched ones when several are', async () => {
    rig = await startBot();
    const r = rig;
    const { north, south } = twoParades(r);
    await answer(r, await command(r, `watch ${north.id}: sold >= 90%`));
    const stopped = await answer(r, await command(r, 'unwatch quokka parade'));
    expect(JSON.stringify(stopped)).toContain('Stopped watching *Quokka Parade North* here');
    expect(await r.bot.watches.list({ channel: 'C0001' })).toEqual([]);

    const none = await answer(r, await command(r, 'unwatch quokka parade'));
    const noneText = JSON.stringify(none);
    expect(noneText).toContain('None of the 2 events');
    expect(noneText).toContain('watched here');
    expect(noneText).not.toContain('/events watch &lt;');

    await answer(r, await command(r, `watch ${north.id}: sold >= 90%`));
    await answer(r, await command(r, `watch ${south.id}: sold >= 90%`));
    const choices = await answer(r, await command(r, 'unwatch quokka parade'));
    expect(blocksText(choices)).toContain('watched here');
    expect(finishButtons(choices).map((button) => (button.text as Json).text)).toEqual(['Unwatch', 'Unwatch']);
    const done = await answer(r, await click(r, FINISH, buttonFor(choices, south.id)));
    expect(JSON.stringify(done)).toContain('Stopped watching *Quokka Parade South* here');
    expect((await r.bot.watches.list({ channel: 'C0001' })).map(({ watch }) => watch.eventId)).toEqual([north.id]);
  });

  it('with --me, looks at the person’s own watches', async () => {
    rig = await startBot();
    const r = rig;
    const { south } = twoParades(r);
    await answer(r, await command(r, `watch ${south.id}: sold >= 90% --me`, 'U0ALICE'));
    const here = await answer(r, await command(r, 'unwatch quokka parade', 'U0ALICE'));
    expect(JSON.stringify(here)).toContain('None of the 2 events');
    const mine = await answer(r, await command(r, 'unwatch quokka parade --me', 'U0ALICE'));
    expect(JSON.stringify(mine)).toContain('Stopped watching *Quokka Parade South* for you');
    expect(await r.bot.watches.list({ channel: 'U0ALICE' })).toEqual([]);
  });
});

describe('/events report with a name several events match', () => {
  it('offers Report buttons that ask for the report in the channel the click came from', async () => {
    rig = await startBot();
    const r = rig;
    const { south } = twoParades(r);
    const choices = await nthResponse(r, await command(r, 'report quokka parade'));
    expect(finishButtons(choices).map((button) => (button.text as Json).text)).toEqual(['Report', 'Report']);
    await click(r, FINISH, buttonFor(choices, south.id), 'U0ALICE', 'C0002');
    const final = await r.slack.waitFor(
      () =>
        r.slack.calls.find(
          (call) => call.method === 'chat.update' && JSON.stringify(call.args.blocks).includes('Report: '),
        ),
      10_000,
    );
    expect(final.args.channel).toBe('C0002');
    expect(JSON.stringify(final.args.blocks)).toContain('Quokka Parade South');
  });
});

describe('event cards', () => {
  it('show: the name once (in the header), with Report and Watch, and Promo for editors only', async () => {
    rig = await startBot();
    const r = rig;
    const { north } = twoParades(r);
    const card = await nthResponse(r, await command(r, `show ${north.id}`));
    expect(blocksText(card).split('Quokka Parade North')).toHaveLength(2);
    const ids = (message: Json) => buttons(message).map((button) => [button.action_id, button.value]);
    expect(ids(card)).toEqual([
      [PICK_REPORT_ACTION, north.id],
      [WATCH_CARD, north.id],
      [PROMO_FOR_EVENT_ACTION, north.id],
    ]);
    const theirs = await nthResponse(r, await command(r, `show ${north.id}`, 'U0NOBODY'));
    expect(ids(theirs)).toEqual([
      [PICK_REPORT_ACTION, north.id],
      [WATCH_CARD, north.id],
    ]);
  });

  it('list: each event carries Report and Watch (and Promo for editors)', async () => {
    rig = await startBot();
    const r = rig;
    const list = await nthResponse(r, await command(r, 'list'));
    const events = ((list.blocks ?? []) as Json[]).filter((block) => block.type === 'section').length;
    expect(events).toBeGreaterThan(0);
    const count = (message: Json, actionId: string) =>
      buttons(message).filter((button) => button.action_id === actionId).length;
    expect(count(list, PICK_REPORT_ACTION)).toBe(events);
    expect(count(list, WATCH_CARD)).toBe(events);
    expect(count(list, PROMO_FOR_EVENT_ACTION)).toBe(events);
    const theirs = await nthResponse(r, await command(r, 'list', 'U0NOBODY'));
    expect(count(theirs, WATCH_CARD)).toBe(events);
    expect(count(theirs, PROMO_FOR_EVENT_ACTION)).toBe(0);
  });

  it('Watch opens the watch form with the event picked', async () => {
    rig = await startBot();
    const r = rig;
    const { north } = twoParades(r);
    await click(r, WATCH_CARD, north.id);
    const opened = await r.slack.waitFor(() => r.slack.calls.find((call) => call.method === 'views.open'));
    const view = opened.args.view as Json;
    expect(view.callback_id).toBe(WATCH_MODAL);
    expect(JSON.stringify(view.blocks)).toContain(north.id);
    expect(JSON.stringify(view.blocks)).toContain('Quokka Parade North');
  });
});
