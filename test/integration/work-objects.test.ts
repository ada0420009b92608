import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import {
  ENTITY_PROMO_ACTION,
  ENTITY_REPORT_ACTION,
  ENTITY_WATCH_ACTION,
  EVENT_ENTITY_TYPE,
} from '../../src/render/event-entity.js';
import { FIELDS, PROMO_MODAL } from '../../src/render/modal-views.js';
import { PROMO_CONFIRM_ACTION } from '../../src/render/promo-blocks.js';
import { formatNumber, reportCurrency } from '../../src/render/report-blocks.js';
import { topFigures } from '../../src/reports/report-figures.js';
import type { EventReport } from '../../src/ticketing/schemas.js';
import { type BotRig, SIGNING_SECRET, startBot } from '../helpers/bot.js';
import { click, command, type Json, reportCalls, watchDirectly } from '../helpers/bot-actions.js';
import { eventBody, postSigned, postSignedJson, viewSubmissionBody } from '../helpers/slack-requests.js';
import { sleep } from '../helpers/wait-for.js';

let rig: BotRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const PAGE = 'https://tickets.example.com/e/{id}';
/** What everyone in a conversation may see of an event: never a figure. */
const CARD_KEYS = ['when', 'starts', 'venue', 'on_sale', 'event_id'];

const sent = (r: BotRig, method: string) => r.slack.calls.filter((call) => call.method === method);
type Entity = {
  entity_type: string;
  external_ref: { id: string; type?: string };
  app_unfurl_url?: string;
  entity_payload: {
    attributes: { title: { text: string } };
    custom_fields?: { key: string; label: string; value?: unknown }[];
    display_order?: string[];
    actions?: { primary_actions?: { action_id: string }[]; overflow_actions?: { action_id: string }[] };
  };
};

async function signedEvent(r: BotRig, event: Record<string, unknown>) {
  const answer = await postSignedJson(r.url, SIGNING_SECRET, eventBody(event));
  expect(answer.status).toBe(200);
}

/** The bot, with a watch's check of an upcoming event at hand (no person asked for it). */
async function withReportAtHand() {
  const r = await startBot({ env: { EVENT_PAGE_URL: PAGE, TICKETING_REPORT_LIMIT: '3/1s', WATCH_MIN_INTERVAL: '1s' } });
  rig = r;
  const snapshot = await r.bot.catalog.snapshot();
  const event = [...snapshot.byId.values()].find(
    (each) =>
      each.status === 'published' &&
      each.start.kind === 'instant' &&
      each.endsAtMs > Date.now() + 3_600_000 &&
      each.venue,
  );
  if (!event) throw new Error('the seed has upcoming published events with a venue');
  await watchDirectly(
    r,
    'C0009',
    { id: event.id, name: event.name ?? event.id, startsAtMs: event.startsAtMs, endsAtMs: event.endsAtMs },
    { userId: 'U0ALICE' },
  );
  expect((await r.bot.watches.turn()).kind).toBe('checked');
  const report = (await r.bot.watches.lastCheck(event.id))?.report as EventReport;
  return { r, event, report, url: `https://tickets.example.com/e/${event.id}` };
}

/** Every figure of a report as any surface would print it (big enough not to be part of a date). */
function printedFigures(report: EventReport): string[] {
  return topFigures(report)
    .filter(([, value]) => Math.abs(value) >= 100)
    .map(([key, value]) => formatNumber(key, value, reportCurrency(report)));
}

let ts = 1700000300;
async function openFlexpane(r: BotRig, user: string, url: string, eventId: string, channel = 'C0001'): Promise<Entity> {
  const trigger = `trigger.${user}.${++ts}`;
  await signedEvent(r, {
    type: 'entity_details_requested',
    user,
    trigger_id: trigger,
    link: { url, domain: 'tickets.example.com' },
    external_ref: { id: eventId, type: 'event' },
    channel,
    message_ts: `${ts}.000100`,
    event_ts: `${ts}.000200`,
  });
  const call = await r.slack.waitFor(() => sent(r, 'entity.presentDetails').find((c) => c.args.trigger_id === trigger));
  return call.args.metadata as Entity;
}

const keys = (entity: Entity) => (entity.entity_payload.custom_fields ?? []).map((field) => field.key);
const actionIds = (entity: Entity) =>
  [
    ...(entity.entity_payload.actions?.primary_actions ?? []),
    ...(entity.entity_payload.actions?.overflow_actions ?? []),
  ].map((action) => action.action_id);

describe('event links as Work Objects', () => {
  it('unfolds into an entity with no figure at all, in an internal channel, a shared one and the composer', async () => {
    const { r, event, report, url } = await withReportAtHand();
    r.slack.conversations.set('C0SHARED', { is_shared: true, is_ext_shared: true });
    const before = reportCalls(r);
    const places = [
      { channel: 'C0001', message_ts: '1700000000.000100' },
      { channel: 'C0SHARED', message_ts: '1700000000.000200' },
      { unfurl_id: 'C123456.789.abc', source: 'composer' },
    ];
    for (const place of places)
      await signedEvent(r, {
        type: 'link_shared',
        user: 'U0ALICE',
        ...place,
        links: [{ url, domain: 'tickets.example.com' }],
      });
    const calls = await r.slack.waitFor(() =>
      sent(r, 'chat.unfurl').length === 3 ? sent(r, 'chat.unfurl') : undefined,
    );
    const figures = printedFigures(report);
    expect(figures.length).toBeGreaterThan(0);
    for (const call of calls) {
      expect(call.args.unfurls).toBeUndefined();
      const [entity, ...more] = (call.args.metadata as { entities: Entity[] }).entities;
      expect(more).toHaveLength(0);
      if (!entity) throw new Error('no entity');
      expect(entity).toMatchObject({
        entity_type: EVENT_ENTITY_TYPE,
        app_unfurl_url: url,
        external_ref: { id: event.id, type: 'event' },
      });
      expect(entity.entity_payload.attributes.title.text).toBe(event.name);
      // Every field is one of the card's: the event, its time, venue and sale, nothing else.
      expect(keys(entity).every((key) => CARD_KEYS.includes(key))).toBe(true);
      expect(keys(entity)).toEqual(expect.arrayContaining(['when', 'starts', 'venue', 'on_sale']));
      const fields = Object.fromEntries((entity.entity_payload.custom_fields ?? []).map((f) => [f.key, f.value]));
      expect(fields.on_sale).toBe('On sale');
      // Its label names what it tells: the card never reads "On sale On sale".
      const labels = Object.fromEntries((entity.entity_payload.custom_fields ?? []).map((f) => [f.key, f.label]));
      expect(labels.on_sale).toBe('Tickets');
      expect(fields.starts).toBe(Math.floor(event.startsAtMs / 1000));
      expect(String(fields.when)).toContain(event.timezone);
      expect(entity.entity_payload.actions).toBeUndefined();
      const text = JSON.stringify(entity);
      for (const figure of figures) expect(text).not.toContain(figure);
      expect(text).not.toMatch(/sold|revenue|capacity|promo/i);
    }
    expect(reportCalls(r)).toBe(before);
  });

  it('sends the classic card when Slack refuses the Work Object (no Work Object previews)', async () => {
    const { r, event, url } = await withReportAtHand();
    r.slack.failNext('chat.unfurl', 'invalid_metadata');
    await signedEvent(r, {
      type: 'link_shared',
      user: 'U0ALICE',
      channel: 'C0001',
      message_ts: '1700000000.000300',
      links: [{ url, domain: 'tickets.example.com' }],
    });
    const classic = await r.slack.waitFor(() => sent(r, 'chat.unfurl')[1]);
    expect(sent(r, 'chat.unfurl')[0]?.args.metadata).toBeDefined();
    expect(JSON.stringify((classic.args.unfurls as Record<string, unknown>)[url])).toContain(event.id);
  });

  it('sends the classic card when Slack takes the Work Object with ok and a warning (nothing would unfold)', async () => {
    const { r, event, url } = await withReportAtHand();
    r.slack.answerNext('chat.unfurl', {
      ok: true,
      warning: 'invalid_metadata_format',
      response_metadata: { messages: ['missing required field (pointer: /metadata/entities/0)'] },
    });
    await signedEvent(r, {
      type: 'link_shared',
      user: 'U0ALICE',
      channel: 'C0001',
      message_ts: '1700000000.000400',
      links: [{ url, domain: 'tickets.example.com' }],
    });
    const classic = await r.slack.waitFor(() => sent(r, 'chat.unfurl')[1]);
    expect(sent(r, 'chat.unfurl')[0]?.args.metadata).toBeDefined();
    expect(JSON.stringify((classic.args.unfurls as Record<string, unknown>)[url])).toContain(event.id);
    const warned = r.logs.filter((line) => line.includes('"level":"warn"') && line.includes('chat.unfurl'));
    expect(warned.join('\n')).toContain('invalid_metadata_format');
  });

  it('sends later links of that team straight to the classic card once Slack did not show a Work Object', async () => {
    const { r, event, url } = await withReportAtHand();
    r.slack.answerNext('chat.unfurl', { ok: true, warning: 'invalid_metadata_format' });
    const share = (ts: string) =>
      signedEvent(r, {
        type: 'link_shared',
        user: 'U0ALICE',
        channel: 'C0001',
        message_ts: ts,
        links: [{ url, domain: 'tickets.example.com' }],
      });
    await share('1700000000.000410');
    await r.slack.waitFor(() => sent(r, 'chat.unfurl')[1]);
    await share('1700000000.000420');
    const later = await r.slack.waitFor(() => sent(r, 'chat.unfurl')[2]);
    // One call for the second link: the classic card, no Work Object tried first.
    expect(later.args.metadata).toBeUndefined();
    expect(JSON.stringify((later.args.unfurls as Record<string, unknown>)[url])).toContain(event.id);
    await r.close();
    rig = undefined;
    expect(sent(r, 'chat.unfurl')).toHaveLength(3);
  });

  it('keeps the Work Object when Slack warns only of how the request was encoded', async () => {
    const { r, url } = await withReportAtHand();
    r.slack.answerNext('chat.unfurl', { ok: true, warning: 'superfluous_charset' });
    await signedEvent(r, {
      type: 'link_shared',
      user: 'U0ALICE',
      channel: 'C0001',
      message_ts: '1700000000.000500',
      links: [{ url, domain: 'tickets.example.com' }],
    });
    await r.slack.waitFor(() => sent(r, 'chat.unfurl')[0]);
    // Closing the bot waits for the work in flight: a classic card, had one followed, is sent by then.
    await r.close();
    rig = undefined;
    expect(sent(r, 'chat.unfurl')).toHaveLength(1);
    expect(sent(r, 'chat.unfurl')[0]?.args.metadata).toBeDefined();
  });

  it('reads the link as posted from app_unfurl_url, and finds the event by it without an external_ref', async () => {
    const { r, event, url } = await withReportAtHand();
    const posted = `${url}?utm_source=newsletter`;
    const trigger = 'trigger.posted-link';
    // As docs.slack.dev's example has it: link.url is the entity's URL, app_unfurl_url the link as posted.
    await signedEvent(r, {
      type: 'entity_details_requested',
      user: 'U0ALICE',
      trigger_id: trigger,
      entity_url: 'https://tickets.example.com/',
      link: { url: 'https://tickets.example.com/', domain: 'tickets.example.com' },
      app_unfurl_url: posted,
      channel: 'C0001',
      message_ts: '1700000001.000100',
      event_ts: '1700000001.000200',
    });
    const call = await r.slack.waitFor(() =>
      sent(r, 'entity.presentDetails').find((c) => c.args.trigger_id === trigger),
    );
    const panel = call.args.metadata as Entity;
    expect(panel.external_ref).toMatchObject({ id: event.id });
    expect(panel.app_unfurl_url).toBe(posted);
  });

  it("fills an employee's flexpane with the figures at hand, how old they are, and Report and Watch, at no report call", async () => {
    const { r, event, report, url } = await withReportAtHand();
    const before = reportCalls(r);
    const panel = await openFlexpane(r, 'U0ALICE', url, event.id);
    expect(keys(panel)).toEqual(expect.arrayContaining([...CARD_KEYS.filter((k) => k !== 'venue'), 'figures_age']));
    const text = JSON.stringify(panel);
    for (const figure of printedFigures(report)) expect(text).toContain(figure);
    const age = panel.entity_payload.custom_fields?.find((field) => field.key === 'figures_age');
    expect(String(age?.value)).toMatch(/^As of .* UTC, read (less than a minute|\d+ minutes?) ago$/);
    expect(actionIds(panel)).toEqual([ENTITY_REPORT_ACTION, ENTITY_WATCH_ACTION]);
    expect(reportCalls(r)).toBe(before);
  });

  it("gives a guest and someone of another organization the card's fields and why, no figure, no report call", async () => {
    const { r, event, report, url } = await withReportAtHand();
    r.slack.people.set('U0GUEST', { is_restricted: true });
    r.slack.people.set('U0OTHER', { is_stranger: true });
    const before = reportCalls(r);
    const guest = await openFlexpane(r, 'U0GUEST', url, event.id);
    const stranger = await openFlexpane(r, 'U0OTHER', url, event.id);
    for (const [panel, why] of [
      [guest, 'not shown to guests'],
      [stranger, 'only to people of the organization'],
    ] as const) {
      expect(keys(panel).filter((key) => !CARD_KEYS.includes(key))).toEqual(['figures_withheld']);
      const reason = panel.entity_payload.custom_fields?.find((field) => field.key === 'figures_withheld');
      expect(String(reason?.value)).toContain(why);
      const text = JSON.stringify(panel);
      for (const figure of printedFigures(report)) expect(text).not.toContain(figure);
      expect(panel.entity_payload.actions).toBeUndefined();
    }
    expect(reportCalls(r)).toBe(before);
  });

  it('answers at once with nothing at hand, queues a report, and shows its figures when the panel is refreshed', async () => {
    // No report cache: what was fetched for the person's flexpane is still theirs to see.
    rig = await startBot({
      env: { EVENT_PAGE_URL: PAGE, TICKETING_REPORT_LIMIT: '3/1s', TICKETING_REPORT_CACHE_TTL: '0' },
    });
    const r = rig;
    const snapshot = await r.bot.catalog.snapshot();
    const event = [...snapshot.byId.values()].find(
      (each) => each.status === 'published' && each.endsAtMs > Date.now() + 3_600_000,
    );
    if (!event) throw new Error('the seed has upcoming published events');
    const url = `https://tickets.example.com/e/${event.id}`;
    const first = await openFlexpane(r, 'U0ALICE', url, event.id);
    const pending = first.entity_payload.custom_fields?.find((field) => field.key === 'figures_pending');
    expect(String(pending?.value)).toContain('a report was asked for in your turn');
    // Slack keeps an opened flexpane and asks again only on its refresh button: the words say so.
    expect(String(pending?.value)).toContain('refresh button');
    expect(String(pending?.value)).not.toMatch(/open this again/i);
    await r.slack.waitFor(() => reportCalls(r) === 1 || undefined);
    // The report lands in the event's record as it is read: the refresh button's request shows it (a few tries, no timing).
    let again = await openFlexpane(r, 'U0ALICE', url, event.id);
    for (let tries = 0; tries < 50 && !keys(again).includes('figures_age'); tries++) {
      await sleep(20);
      again = await openFlexpane(r, 'U0ALICE', url, event.id);
    }
    expect(keys(again)).toContain('figures_age');
    expect(keys(again)).not.toContain('figures_pending');
    expect(reportCalls(r)).toBe(1);
  });

  it('shows the event record when opened again from another channel, money written as the card writes it (issue 42)', async () => {
    rig = await startBot({
      env: { EVENT_PAGE_URL: PAGE, TICKETING_REPORT_LIMIT: '3/1s', TICKETING_REPORT_CACHE_TTL: '0' },
    });
    const r = rig;
    const snapshot = await r.bot.catalog.snapshot();
    const event = [...snapshot.byId.values()].find(
      (each) =>
        each.status === 'published' &&
        each.endsAtMs > Date.now() + 3_600_000 &&
        r.sim.catalog.events.find((e) => e.id === each.id)?.currency === 'USD',
    );
    if (!event) throw new Error('the seed has upcoming published events in USD');
    const url = `https://tickets.example.com/e/${event.id}`;
    const field = (entity: Entity, key: string) =>
      entity.entity_payload.custom_fields?.find((each) => each.key === key)?.value;
    r.sim.setFigures(event.id, { ticketsSold: 20 });
    await openFlexpane(r, 'U0ALICE', url, event.id);
    await r.slack.waitFor(() => reportCalls(r) === 1 || undefined);
    await expect.poll(async () => (await r.bot.reports.atHand(event.id))?.report.ticketsSold).toBe(20);
    const first = await openFlexpane(r, 'U0ALICE', url, event.id);
    expect(field(first, 'figure_ticketssold')).toBe('20');
    // Every amount with its cents, as the report and the card write it: `500.00 USD`, not `500 USD`.
    const gross = String(field(first, 'figure_grossrevenue'));
    expect(gross).toMatch(/^[\d,]+\.\d\d USD$/);

    // Someone else's report reads the event again, with more sold.
    r.sim.setFigures(event.id, { ticketsSold: 31 });
    await command(r, `report ${event.id}`, 'U0BOB', 'C0002');
    await r.slack.waitFor(() => (reportCalls(r) === 2 ? true : undefined));
    await expect.poll(async () => (await r.bot.reports.atHand(event.id))?.report.ticketsSold).toBe(31);
    const again = await openFlexpane(r, 'U0ALICE', url, event.id, 'C0002');
    expect(field(again, 'figure_ticketssold')).toBe('31');
  });

  it('offers a promo editor Change promo quantity, which leads to the promo form and its confirmation', async () => {
    const { r, event, url } = await withReportAtHand();
    const promo = r.sim.catalog.promos.find((p) => p.eventId === event.id);
    if (!promo) throw new Error('the seed event has a promo code');
    const member = await openFlexpane(r, 'U0ALICE', url, event.id);
    expect(actionIds(member)).not.toContain(ENTITY_PROMO_ACTION);
    const editor = await openFlexpane(r, 'U0EDITOR', url, event.id);
    expect(editor.entity_payload.actions?.overflow_actions?.map((a) => a.action_id)).toEqual([ENTITY_PROMO_ACTION]);

    await click(r, ENTITY_PROMO_ACTION, event.id, 'U0EDITOR');
    const opened = await r.slack.waitFor(() => sent(r, 'views.open')[0]);
    const view = opened.args.view as Json;
    expect(view.callback_id).toBe(PROMO_MODAL);
    expect(JSON.stringify(view.blocks)).toContain(event.id);
    const submitted = await postSigned(
      r.url,
      SIGNING_SECRET,
      viewSubmissionBody({
        callbackId: PROMO_MODAL,
        privateMetadata: String(view.private_metadata),
        values: {
          [FIELDS.event.block]: {
            [FIELDS.event.action]: { type: 'external_select', selected_option: { value: event.id } },
          },
          [FIELDS.promo.block]: { [FIELDS.promo.action]: { type: 'plain_text_input', value: promo.id } },
          [FIELDS.quantity.block]: { [FIELDS.quantity.action]: { type: 'number_input', value: '77' } },
        },
      }),
    );
    expect(submitted.status).toBe(200);
    // No conversation behind a flexpane: the confirmation comes in the editor's DM with the bot.
    const confirmation = await r.slack.waitFor(() =>
      sent(r, 'chat.postMessage').find(
        (c) => c.args.channel === 'U0EDITOR' && JSON.stringify(c.args.blocks).includes(PROMO_CONFIRM_ACTION),
      ),
    );
    expect(JSON.stringify(confirmation.args.blocks)).toContain('77');
    expect(promo.quantity).not.toBe(77);
  });

  it('says why there are no figures when Slack cannot say who the person is, and spends no report', async () => {
    const { r, event, report, url } = await withReportAtHand();
    const before = reportCalls(r);
    r.slack.failNext('users.info', 'user_not_found', 5);
    const panel = await openFlexpane(r, 'U0NOBODY', url, event.id);
    const reason = panel.entity_payload.custom_fields?.find((field) => field.key === 'figures_withheld');
    expect(String(reason?.value)).toContain('Slack could not say who can read this for you');
    const text = JSON.stringify(panel);
    for (const figure of printedFigures(report)) expect(text).not.toContain(figure);
    expect(reportCalls(r)).toBe(before);
  });

  it('offers no Report nor Watch when Slack does not say in time who the person is', async () => {
    const { r, event, report, url } = await withReportAtHand();
    const held = r.slack.holdNext('users.info');
    try {
      // Answered past the panel's deadline (users.info is held until then): the person is not known.
      const panel = await openFlexpane(r, 'U0SLOWPERSON', url, event.id);
      expect(actionIds(panel)).toEqual([]);
      const reason = panel.entity_payload.custom_fields?.find((field) => field.key === 'figures_withheld');
      expect(String(reason?.value)).toContain('did not answer in time');
      const text = JSON.stringify(panel);
      for (const figure of printedFigures(report)) expect(text).not.toContain(figure);
    } finally {
      held.release();
    }
  });

  it('answers an unknown event with an error panel rather than nothing', async () => {
    rig = await startBot({ env: { EVENT_PAGE_URL: PAGE } });
    await rig.bot.catalog.snapshot();
    const unknown = 'evt_00000000-0000-4000-8000-000000000000';
    const trigger = 'trigger.unknown';
    await signedEvent(rig, {
      type: 'entity_details_requested',
      user: 'U0ALICE',
      trigger_id: trigger,
      link: { url: `https://tickets.example.com/e/${unknown}`, domain: 'tickets.example.com' },
      external_ref: { id: unknown, type: 'event' },
    });
    const call = await rig.slack.waitFor(() => sent(rig as BotRig, 'entity.presentDetails')[0]);
    expect(call.args).toMatchObject({
      trigger_id: trigger,
      error: { status: 'custom', custom_title: 'Event not found' },
    });
    expect(String((call.args.error as { custom_message?: string }).custom_message)).toContain('refresh button');
  });

  it('reads UNFURL_STYLE as work-object (the default) or classic, and names a wrong value', () => {
    expect(loadConfig({}).slack.unfurlStyle).toBe('work-object');
    expect(loadConfig({ UNFURL_STYLE: ' Classic ' }).slack.unfurlStyle).toBe('classic');
    expect(() => loadConfig({ UNFURL_STYLE: 'blocks' })).toThrow(
      /UNFURL_STYLE: expected one of work-object, classic, got "blocks"/,
    );
  });

  it("sends a flexpane's Report to the person's DM with the bot", async () => {
    const { r, event } = await withReportAtHand();
    await click(r, ENTITY_REPORT_ACTION, event.id, 'U0ALICE');
    const dm = await r.slack.waitFor(() => sent(r, 'chat.postMessage').find((c) => c.args.channel === 'U0ALICE'));
    expect(JSON.stringify(dm.args)).toContain(event.name ?? event.id);
  });
});
