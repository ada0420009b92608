import { afterEach, describe, expect, it } from 'vitest';
import { NEXT_PAGE_ACTION } from '../../src/render/event-blocks.js';
import { PROMO_CANCEL_ACTION, PROMO_CONFIRM_ACTION } from '../../src/render/promo-blocks.js';
import { eventSchema } from '../../src/ticketing/schemas.js';
import { BOT_TOKEN, type BotRig, SIGNING_SECRET, startBot } from '../helpers/bot.js';
import {
  answerTo,
  blocksText,
  buttonValue,
  click,
  command,
  type Json,
  nthResponse,
  openHome,
  responsesTo,
} from '../helpers/bot-actions.js';
import { commandBody, postSigned } from '../helpers/slack-requests.js';
import { waitFor } from '../helpers/wait-for.js';

let rig: BotRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

describe('slash commands through the real Bolt app', () => {
  it('lists the commands with examples on /events help', async () => {
    rig = await startBot();
    const { responseUrl } = await command(rig, 'help');
    const message = await nthResponse(rig, responseUrl);
    expect(message.response_type).toBe('ephemeral');
    for (const sub of ['list', 'show', 'report', 'promo', 'digest'])
      expect(blocksText(message)).toContain(`/events ${sub}`);
    expect(rig.sim.stats().requests).toBe(0);
  });

  it('lists upcoming events soonest first across the whole catalog, whatever the API order, and pages with Next', async () => {
    rig = await startBot({ sim: { eventCount: 200, listOrder: 'shuffled' } });
    const { responseUrl } = await command(rig, '');
    const first = await nthResponse(rig, responseUrl);
    expect(first.response_type).toBe('ephemeral');
    expect(typeof first.text).toBe('string');
    const now = Date.now();
    // Upcoming as the list counts it: not over, and not cancelled.
    const upcoming = rig.sim.catalog.events.filter(
      (event) => eventSchema.parse(event).endsAtMs > now && event.status !== 'cancelled',
    );
    // Each event once, in order (its buttons carry its id too).
    const shownIds = [...new Set([...blocksText(first).matchAll(/evt_[0-9a-f-]{36}/g)].map((m) => m[0]))];
    expect(shownIds.length).toBe(10);
    for (const id of shownIds) expect(upcoming.map((e) => e.id)).toContain(id);
    const starts = shownIds.map((id) => rig?.sim.catalog.events.find((e) => e.id === id)?.startsAtMs ?? 0);
    expect([...starts].sort((a, b) => a - b)).toEqual(starts);
    // The ten soonest of all 200, not of one API page.
    const soonest = upcoming
      .map((event) => eventSchema.parse(event))
      .sort((a, b) => a.startsAtMs - b.startsAtMs || a.id.localeCompare(b.id));
    expect(shownIds).toEqual(soonest.slice(0, 10).map((e) => e.id));

    const next = await click(rig, NEXT_PAGE_ACTION, buttonValue(first, NEXT_PAGE_ACTION));
    const second = await nthResponse(rig, next.responseUrl);
    expect(second.replace_original).toBe(true);
    const secondIds = [...new Set([...blocksText(second).matchAll(/evt_[0-9a-f-]{36}/g)].map((m) => m[0]))];
    expect(secondIds.length).toBeGreaterThan(0);
    expect(secondIds).toEqual(soonest.slice(10, 20).map((e) => e.id));
    // One crawl of two API pages served both pages of the list.
    expect(rig.sim.stats().requests).toBe(2);
  });

  it('shows one event card for an id given without its prefix', async () => {
    rig = await startBot();
    const event = rig.sim.catalog.events.find((e) => e.startDate.includes('T')) ?? rig.sim.catalog.events[0];
    const { responseUrl } = await command(rig, `show ${event?.id.slice(4)}`);
    const card = await nthResponse(rig, responseUrl);
    expect(blocksText(card)).toContain(event?.id);
    expect(blocksText(card)).toContain(event?.timezone);
    expect(blocksText(card)).toContain('<!date^');
  });

  it.each([
    ['frobnicate', 'Unknown subcommand'],
    ['show', 'needs an event id or words of its name'],
    ['find', 'needs words of an event'],
    ['show promo_3f2c1a9e-8b7d-4c6e-9f01-23456789abcd', 'is a promo code id, not a event id'],
    [
      'promo evt_3f2c1a9e-8b7d-4c6e-9f01-23456789abcd promo_3f2c1a9e-8b7d-4c6e-9f01-23456789abcd -5',
      'cannot be negative',
    ],
    ['promo evt_3f2c1a9e-8b7d-4c6e-9f01-23456789abcd promo_3f2c1a9e-8b7d-4c6e-9f01-23456789abcd 2.5', 'whole number'],
    [
      'promo evt_3f2c1a9e-8b7d-4c6e-9f01-23456789abcd promo_3f2c1a9e-8b7d-4c6e-9f01-23456789abcd lots',
      'is not a number',
    ],
    [
      'promo evt_3f2c1a9e-8b7d-4c6e-9f01-23456789abcd promo_3f2c1a9e-8b7d-4c6e-9f01-23456789abcd 99999999999',
      'too large',
    ],
    [
      'promo evt_3f2c1a9e-8b7d-4c6e-9f01-23456789abcd 5',
      'takes an event (its id or name), a promo code (or its id) and a quantity',
    ],
  ])('answers bad input "%s" privately with the right form and calls no API', async (text, problem) => {
    rig = await startBot();
    const { responseUrl } = await command(rig, text);
    const message = await nthResponse(rig, responseUrl);
    expect(message.response_type).toBe('ephemeral');
    expect(blocksText(message)).toContain(problem);
    expect(blocksText(message)).toContain('Usage:');
    expect(rig.sim.stats().requests).toBe(0);
  });

  it('acknowledges every command well under a second while the API takes seconds', async () => {
    // Each API call takes 1.5 s (the catalog's crawl is one page); the three arrive together.
    rig = await startBot({ sim: { latencyMs: 1_500, eventCount: 100 } });
    const r = rig;
    const event = r.sim.catalog.events[0];
    const asked = await Promise.all(
      ['list', `show ${event?.id}`, `report ${event?.id}`].map((text) => command(r, text)),
    );
    for (const { ackMs } of asked) expect(ackMs).toBeLessThan(1_000);
    // Acknowledged: calls made from now on need not be slow (those in flight still take 1.5 s).
    r.sim.knobs.latencyMs = 0;
    // The list and the card come once the service has answered.
    await Promise.all(asked.slice(0, 2).map(({ responseUrl }) => nthResponse(r, responseUrl)));
  });

  it('tells the person when the API is too slow instead of leaving them waiting', async () => {
    rig = await startBot({ sim: { latencyMs: 600 }, interactiveTimeoutMs: 200 });
    const { responseUrl } = await command(rig, 'list');
    const message = await nthResponse(rig, responseUrl);
    expect(String(message.text)).toMatch(/slow to answer/);
  });

  it('escapes an event name that tries to inject <!channel>', async () => {
    rig = await startBot();
    const hostile = rig.sim.catalog.events.find((e) => e.name.includes('<!channel>'));
    if (!hostile) throw new Error('the simulator has no hostile name');
    const { responseUrl } = await command(rig, `show ${hostile.id}`);
    const card = await nthResponse(rig, responseUrl);
    const everything = JSON.stringify(card);
    expect(everything).not.toContain('<!channel>');
    expect(everything).toContain('&lt;!channel&gt;');
  });
});

describe('promo changes', () => {
  it('refuses someone not in PROMO_EDITORS and sends nothing', async () => {
    rig = await startBot();
    const promo = rig.sim.catalog.promos[0];
    const { responseUrl } = await command(rig, `promo ${promo?.eventId} ${promo?.id} 10`, 'U0STRANGER');
    const message = await nthResponse(rig, responseUrl);
    expect(blocksText(message)).toContain('Only promo editors');
    expect(rig.sim.stats().requests).toBe(0);
  });

  it('asks to confirm, then updates, records, and announces the change', async () => {
    rig = await startBot();
    const promo = rig.sim.catalog.promos[2];
    if (!promo) throw new Error('no promo');
    const before = { ...promo };
    const { responseUrl } = await command(rig, `promo ${promo.eventId} ${promo.id} 321`);
    const proposal = await answerTo(rig, responseUrl);
    expect(blocksText(proposal)).toContain('321');
    expect(promo.quantity).toBe(before.quantity);

    const confirm = await click(rig, PROMO_CONFIRM_ACTION, buttonValue(proposal, PROMO_CONFIRM_ACTION));
    const done = await nthResponse(rig, confirm.responseUrl);
    expect(done.replace_original).toBe(true);
    expect(blocksText(done)).toContain('now allows *321*');
    expect(promo).toEqual({ ...before, quantity: 321 });

    const announcement = rig.slack.calls.find((c) => c.method === 'chat.postMessage');
    expect(announcement?.args.channel).toBe('C0001');
    expect(JSON.stringify(announcement?.args.blocks)).toContain('<@U0EDITOR> set promo code');
    const audit = await rig.bot.activity.promoAudit();
    expect(audit[0]).toMatchObject({
      userId: 'U0EDITOR',
      eventId: promo.eventId,
      promoId: promo.id,
      quantity: 321,
      outcome: 'updated',
    });
  });

  it('shows the quantity now and the redemptions, warns before the one button when the new quantity is below them, and records the old value', async () => {
    rig = await startBot();
    const r = rig;
    const promo = r.sim.catalog.promos.find((each) => each.redeemed >= 5);
    if (!promo) throw new Error('no promo with redemptions');
    const before = { ...promo };
    const below = promo.redeemed - 1;
    // By id, with no report at hand: its quantity now is read for the change, in the person's turn.
    const { responseUrl } = await command(r, `promo ${promo.eventId} ${promo.id} ${below}`);
    const proposal = await answerTo(r, responseUrl);
    const text = blocksText(proposal);
    expect(text).toContain(`${before.quantity} → ${below}`);
    expect(text).toContain(`*${promo.redeemed}* are redeemed`);
    expect(text).toContain('already redeemed');
    // One confirmation: the message is it, with no second dialog behind its button.
    const button = (proposal.blocks as Json[])
      .flatMap((block) => (block.elements ?? []) as Json[])
      .find((element) => element.action_id === PROMO_CONFIRM_ACTION);
    expect(button?.confirm).toBeUndefined();
    expect(button?.style).toBe('danger');
    const confirm = await click(r, PROMO_CONFIRM_ACTION, buttonValue(proposal, PROMO_CONFIRM_ACTION));
    expect(blocksText(await nthResponse(r, confirm.responseUrl))).toContain(`(was ${before.quantity})`);
    const announcement = r.slack.calls.find((c) => c.method === 'chat.postMessage');
    expect(JSON.stringify(announcement?.args.blocks)).toContain(`(was ${before.quantity})`);
    expect((await r.bot.activity.promoAudit())[0]).toMatchObject({
      previousQuantity: before.quantity,
      quantity: below,
    });
  });

  it('warns when the new quantity equals what is redeemed (none left) and names the least that keeps it usable', async () => {
    rig = await startBot();
    const r = rig;
    const promo = r.sim.catalog.promos.find((each) => each.redeemed >= 5);
    if (!promo) throw new Error('no promo with redemptions');
    const atEqual = blocksText(
      await answerTo(r, (await command(r, `promo ${promo.eventId} ${promo.id} ${promo.redeemed}`)).responseUrl),
    );
    expect(atEqual).toContain('already redeemed');
    expect(atEqual).toContain('none left');
    expect(atEqual).toContain(`at least *${promo.redeemed + 1}* to keep it usable`);
    const usable = blocksText(
      await answerTo(r, (await command(r, `promo ${promo.eventId} ${promo.id} ${promo.redeemed + 1}`)).responseUrl),
    );
    expect(usable).toContain(`*${promo.redeemed}* are redeemed`);
    expect(usable).not.toContain('already redeemed');
  });

  it('lets members of an editor user group change promos, and cancel leaves everything as it was', async () => {
    rig = await startBot();
    rig.slack.groups.set('S0EDITORS', ['U0GROUPIE']);
    const promo = rig.sim.catalog.promos[3];
    const { responseUrl } = await command(rig, `promo ${promo?.eventId} ${promo?.id} 5`, 'U0GROUPIE');
    const proposal = await answerTo(rig, responseUrl);
    expect(blocksText(proposal)).toContain(PROMO_CONFIRM_ACTION);
    const cancel = await click(rig, PROMO_CANCEL_ACTION, buttonValue(proposal, PROMO_CANCEL_ACTION), 'U0GROUPIE');
    expect(blocksText(await nthResponse(rig, cancel.responseUrl))).toContain('nothing was changed');
    // A cancelled confirmation is used up: its Confirm button does nothing afterwards.
    const late = await click(rig, PROMO_CONFIRM_ACTION, buttonValue(proposal, PROMO_CONFIRM_ACTION), 'U0GROUPIE');
    expect(blocksText(await nthResponse(rig, late.responseUrl))).toContain('already used');
    expect(rig.sim.stats().log.filter((entry) => entry.method === 'POST')).toHaveLength(0);
  });

  it('says privately when it cannot announce in the channel (not_in_channel)', async () => {
    rig = await startBot();
    rig.slack.failNext('chat.postMessage', 'not_in_channel');
    const promo = rig.sim.catalog.promos[4];
    const { responseUrl } = await command(rig, `promo ${promo?.eventId} ${promo?.id} 8`);
    const proposal = await answerTo(rig, responseUrl);
    const confirm = await click(rig, PROMO_CONFIRM_ACTION, buttonValue(proposal, PROMO_CONFIRM_ACTION));
    const done = await nthResponse(rig, confirm.responseUrl);
    expect(blocksText(done)).toContain('/invite @eventops');
    expect(promo?.quantity).toBe(8);
  });
});

describe('reports', () => {
  it('posts the queue position at once, updates it as the queue moves, then shows the report with the file', async () => {
    rig = await startBot({
      sim: { reportLimit: { limit: 1, windowMs: 700 } },
      env: { TICKETING_REPORT_LIMIT: '1/700ms' },
    });
    const [a, b] = rig.sim.catalog.events;
    await command(rig, `report ${a?.id}`);
    await command(rig, `report ${b?.id}`);
    const slack = rig.slack;
    const finalFor = (id: string | undefined) =>
      slack.waitFor(() =>
        slack.calls.find(
          (c) =>
            c.method === 'chat.update' &&
            JSON.stringify(c.args.blocks).includes(`Report: `) &&
            JSON.stringify(c.args.blocks).includes(id ?? '?'),
        ),
      );
    await finalFor(b?.id);
    const posts = slack.calls.filter((c) => c.method === 'chat.postMessage');
    expect(posts).toHaveLength(2);
    expect(String(posts[1]?.args.text)).toMatch(/queued: position 1/);
    const secondUpdates = slack.calls.filter((c) => c.method === 'chat.update').map((c) => String(c.args.text));
    expect(secondUpdates.some((text) => /Fetching the report/.test(text))).toBe(true);
    const final = await finalFor(b?.id);
    expect(JSON.stringify(final.args.blocks)).toContain('Tickets sold');
    expect(slack.calls.some((c) => c.method === 'files.completeUploadExternal')).toBe(true);
    expect(rig.sim.stats().mostInAnySpan.report).toBe(1);
    const bot = rig.bot;
    // The listener records the report just after its last answer.
    const recent = async () => (await bot.activity.recent('U0EDITOR')).reports.map((r) => r.eventId);
    await waitFor(async () => (await recent()).length >= 2, { what: 'both reports recorded', timeoutMs: 2_000 });
    const recorded = await recent();
    expect(recorded.sort()).toEqual([a?.id, b?.id].sort());
  });

  it('escapes a hostile error body from the report endpoint in the message edited in the channel', async () => {
    rig = await startBot();
    await rig.bot.catalog.snapshot(); // the catalog is read first; the hostile answer is the report's
    rig.sim.forceAnswer(1, 422, { error: 'nope', message: '<!channel> please <https://evil.example|log in again>' });
    const event = rig.sim.catalog.events[0];
    await command(rig, `report ${event?.id}`);
    const slack = rig.slack;
    const failed = await slack.waitFor(() =>
      slack.calls.find((c) => c.method === 'chat.update' && String(c.args.text).includes('refused')),
    );
    const shown = `${String(failed.args.text)}${JSON.stringify(failed.args.blocks)}`;
    expect(shown).toContain('&lt;!channel&gt; please &lt;https://evil.example|log in again&gt;');
    expect(shown).not.toMatch(/<!channel>|<https:/);
  });

  it('answers privately when it is not in the channel', async () => {
    rig = await startBot();
    rig.slack.failNext('chat.postMessage', 'not_in_channel');
    const event = rig.sim.catalog.events[0];
    const { responseUrl } = await command(rig, `report ${event?.id}`);
    const final = await rig.slack.waitFor(() =>
      responsesTo(rig as BotRig, responseUrl).find((r) => JSON.stringify(r.args.blocks).includes('Tickets sold')),
    );
    expect(JSON.stringify(final.args.blocks)).toContain('/invite @eventops');
  });
});

describe('App Home and request checks', () => {
  it('publishes the home tab with events, recent activity and the budget', async () => {
    rig = await startBot();
    const view = await openHome(rig, 'U0EDITOR');
    expect(view).toContain('Upcoming events');
    expect(view).toContain('requests left in this window');
    expect((JSON.parse(view) as { blocks: unknown[] }).blocks.length).toBeLessThanOrEqual(100);
  });

  it('refuses a request with a bad signature and logs no secret', async () => {
    rig = await startBot();
    const body = commandBody({ text: 'help', response_url: rig.slack.responseUrl() });
    const result = await postSigned(rig.url, 'not-the-secret', body);
    expect(result.status).toBe(401);
    const logs = rig.logs.join('\n');
    expect(logs).not.toContain(SIGNING_SECRET);
    expect(logs).not.toContain(rig.sim.apiKeys[0]);
    expect(logs).not.toContain(BOT_TOKEN);
  });
});

describe('errors a user can act on', () => {
  it('says the API key was rejected', async () => {
    rig = await startBot({ env: { TICKETING_API_KEY: 'sk_wrong_key_for_test' } });
    const { responseUrl } = await command(rig, 'list');
    expect(String((await nthResponse(rig, responseUrl)).text)).toContain('rejected eventops’ API key');
    expect(rig.logs.join('\n')).not.toContain('sk_wrong_key_for_test');
  });

  it('says the API is unreachable', async () => {
    rig = await startBot({ env: { TICKETING_API_URL: 'http://127.0.0.1:9' } });
    const { responseUrl } = await command(rig, 'list');
    expect(String((await nthResponse(rig, responseUrl)).text)).toContain("couldn't reach the Event Ticketing Service");
  });

  it('says when an event does not exist, and how fresh the list it looked in is', async () => {
    rig = await startBot();
    const { responseUrl } = await command(rig, 'show 00000000-0000-4000-8000-000000000000');
    const answer = await nthResponse(rig, responseUrl);
    expect(String(answer.text)).toContain('No event matches `evt_00000000-0000-4000-8000-000000000000`');
    expect(blocksText(answer)).toContain('Event list as of');
  });

  it('says how long to wait when the organization budget is rate-limited', async () => {
    rig = await startBot({ sim: { orgLimit: { limit: 180, windowMs: 60_000 } } });
    rig.sim.forceRateLimit(1, '45');
    const { responseUrl } = await command(rig, 'list');
    expect(String((await nthResponse(rig, responseUrl)).text)).toMatch(
      /rate-limiting us right now\. Please try again in about 4[5-6] s/,
    );
    // The next person is told at once too, without another request reaching the API.
    const before = rig.sim.stats().requests;
    const second = await command(rig, 'list');
    expect(String((await nthResponse(rig, second.responseUrl)).text)).toContain('rate-limiting us');
    expect(rig.sim.stats().requests).toBe(before);
  });
});
