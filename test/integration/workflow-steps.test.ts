import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { describeEventTime } from '../../src/render/event-time.js';
import { escapeText } from '../../src/render/mrkdwn.js';
import { formatMoney } from '../../src/render/report-blocks.js';
import type { SimEvent, SimPromo } from '../../src/simulator/seed.js';
import type { PromoChangeRecord } from '../../src/store/activity-store.js';
import { type BotRig, SIGNING_SECRET, startBot } from '../helpers/bot.js';
import { command } from '../helpers/bot-actions.js';
import type { SlackCall } from '../helpers/fake-slack.js';
import { functionExecutedBody, postSignedJson, REPORT_STEP_READER } from '../helpers/slack-requests.js';

/** A workflow token as Slack passes it in `function_executed`, built at run time (plainly not real). */
const WORKFLOW_TOKEN = ['xwfp', '-', 'fake-', 'workflow-token'].join('');

let rig: BotRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** Every output name a step completed with in this file's runs, by step: the manifest must declare each. */
const completedOutputs = new Map<string, Set<string>>();

/** Runs a step, signed, and waits for its `functions.completeSuccess` or `functions.completeError`. */
async function runStep(
  r: BotRig,
  callbackId: string,
  inputs: Record<string, unknown>,
  executionId = `Fx${randomUUID().slice(0, 10)}`,
): Promise<SlackCall> {
  const answer = await postSignedJson(
    r.url,
    SIGNING_SECRET,
    functionExecutedBody(callbackId, inputs, executionId, WORKFLOW_TOKEN),
  );
  expect(answer.status).toBe(200);
  const done = await r.slack.waitFor(
    () =>
      r.slack.calls.find(
        (call) => call.method.startsWith('functions.complete') && call.args.function_execution_id === executionId,
      ),
    20_000,
  );
  const names = completedOutputs.get(callbackId) ?? new Set();
  for (const name of Object.keys((done.args.outputs as object | undefined) ?? {})) names.add(name);
  completedOutputs.set(callbackId, names);
  return done;
}

const posts = (r: BotRig) => r.sim.stats().log.filter((entry) => entry.method === 'POST');
const reportCalls = (r: BotRig) => r.sim.stats().log.filter((entry) => entry.path.endsWith('/report'));
const EDITOR = { id: 'U0EDITOR', secret: 'slack-sets-this' };
const AS_OF = '\\d\\d:\\d\\d UTC';

/** A published event that has not started, with promo codes. */
function eventWithPromos(r: BotRig): { event: SimEvent; promos: SimPromo[] } {
  const now = Date.now();
  for (const event of r.sim.catalog.events) {
    const promos = r.sim.catalog.promos.filter((promo) => promo.eventId === event.id);
    if (event.status === 'published' && event.startsAtMs > now && promos.length > 0) return { event, promos };
  }
  throw new Error('no event with promo codes');
}

async function audit(r: BotRig): Promise<PromoChangeRecord[]> {
  return r.bot.activity.promoAudit();
}

describe('Get event report', () => {
  it('completes with the headline figures as numbers, the report as text and the event name', async () => {
    rig = await startBot();
    const { event, promos } = eventWithPromos(rig);
    event.name = 'Jazz & Blues <Live>';
    rig.sim.setFigures(event.id, { capacity: 1000, ticketsSold: 300, checkIns: 120 });
    const done = await runStep(rig, 'get_event_report', { event: event.id, ...REPORT_STEP_READER });
    expect(done.method).toBe('functions.completeSuccess');
    // One process: completed by the run's own handler, with the workflow token Slack passed it.
    expect(done.token).toBe(WORKFLOW_TOKEN);
    const outputs = done.args.outputs as Record<string, unknown>;
    const money = (value: string) => formatMoney(Number(value.replace(/,/g, '')), event.currency);
    expect({ ...outputs, report_text: undefined }).toEqual({
      event_id: event.id,
      event_name: 'Jazz & Blues <Live>',
      report_text: undefined,
      currency: event.currency,
      tickets_sold: 300,
      capacity: 1000,
      gross_revenue: 10_800,
      net_revenue: 10_152,
      check_ins: 120,
      refunds: 6,
    });
    const lines = String(outputs.report_text).split('\n');
    expect(lines).toEqual([
      '*Report: Jazz &amp; Blues &lt;Live&gt;*',
      'Tickets sold: 300',
      'Capacity: 1,000',
      `Gross revenue: ${money('10,800')}`,
      `Net revenue: ${money('10,152')}`,
      'Check ins: 120',
      'Refunds: 6',
      ...promos.map(
        (promo) =>
          `Promo \`${promo.code}\`: ${promo.redeemed} of ${promo.quantity} redeemed, ${promo.quantity - promo.redeemed} left`,
      ),
      expect.stringMatching(new RegExp(`^Generated \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z · \`${event.id}\`$`)),
    ]);
    expect(reportCalls(rig)).toHaveLength(1);
  });

  it('fetches and completes a run Slack delivers twice once', async () => {
    rig = await startBot();
    const { event } = eventWithPromos(rig);
    const done = await runStep(rig, 'get_event_report', { event: event.id, ...REPORT_STEP_READER }, 'FxREPORTTWICE');
    expect(done.method).toBe('functions.completeSuccess');
    const again = await postSignedJson(
      rig.url,
      SIGNING_SECRET,
      functionExecutedBody(
        'get_event_report',
        { event: event.id, ...REPORT_STEP_READER },
        'FxREPORTTWICE',
        WORKFLOW_TOKEN,
      ),
    );
    expect(again.status).toBe(200);
    const finished = () => rig?.logs.filter((line) => line.includes('"msg":"Workflow step finished"')) ?? [];
    await rig.slack.waitFor(() => (finished().length === 2 ? true : undefined));
    expect(finished()[1]).toContain('"outcome":"none"');
    expect(rig.slack.calls.filter((call) => call.method.startsWith('functions.complete'))).toHaveLength(1);
    expect(reportCalls(rig)).toHaveLength(1);
  });

  it('finds the event by words of its name', async () => {
    rig = await startBot();
    const { event } = eventWithPromos(rig);
    event.name = 'Qwertz Gala Evening';
    const done = await runStep(rig, 'get_event_report', { event: 'qwertz gala', ...REPORT_STEP_READER });
    expect(done.method).toBe('functions.completeSuccess');
    expect(done.args.outputs).toMatchObject({ event_id: event.id, event_name: 'Qwertz Gala Evening' });
  });

  it('fails with a sentence for an unknown event, and spends no report call', async () => {
    rig = await startBot();
    const unknown = 'evt_00000000-0000-4000-8000-000000000000';
    const done = await runStep(rig, 'get_event_report', { event: unknown, ...REPORT_STEP_READER });
    expect(done.method).toBe('functions.completeError');
    expect(done.args.error).toMatch(
      new RegExp(
        `^No event matches "${unknown}" in the event list \\(as of ${AS_OF}\\)\\. Check the event's id \\(evt_…\\) or the words of its name\\.$`,
      ),
    );
    expect(reportCalls(rig)).toHaveLength(0);
  });

  it('offers the nearest names, with their ids, for words that match no event', async () => {
    rig = await startBot();
    const { event } = eventWithPromos(rig);
    event.name = 'Qwertz Gala Evening';
    const done = await runStep(rig, 'get_event_report', { event: 'qwertz opera', ...REPORT_STEP_READER });
    expect(done.method).toBe('functions.completeError');
    expect(String(done.args.error)).toContain(`No event matches "qwertz opera"`);
    expect(String(done.args.error)).toContain(`Did you mean "Qwertz Gala Evening" (${event.id})?`);
    // The step that changes codes acts on a whole name only, and names the one meant.
    const exact = await runStep(rig, 'set_promo_quantity', {
      run_by: EDITOR,
      event: 'Qwertz Gala Evenin',
      promo: 'EARLYBIRD',
      quantity: 0,
    });
    expect(String(exact.args.error)).toContain(`Did you mean "Qwertz Gala Evening" (${event.id})?`);
    expect(reportCalls(rig)).toHaveLength(0);
  });

  it.each([
    ['run by a guest', { ...REPORT_STEP_READER, run_by: { id: 'U0GUEST', secret: 'x' } }, /not shown to guests/],
    [
      'run by someone of another organization',
      { ...REPORT_STEP_READER, run_by: { id: 'U0PARTNER', secret: 'x' } },
      /only to people of the organization/,
    ],
    [
      'posting in a channel shared with a partner',
      { ...REPORT_STEP_READER, post_in: 'C0PARTNER' },
      /shared with another organization/,
    ],
    // A DM id is asked about like any conversation: a DM with a partner is not private.
    [
      'posting in a DM with a partner',
      { ...REPORT_STEP_READER, post_in: 'D0PARTNERDM' },
      /shared with another organization/,
    ],
    ['not saying who runs it', { post_in: 'C0OPS' }, /needs to know who runs the workflow: set its "Run by" input/],
    [
      'not saying where it posts',
      { run_by: REPORT_STEP_READER.run_by },
      /needs to know where its figures will be posted/,
    ],
    [
      'posting where Slack cannot say who reads it',
      { ...REPORT_STEP_READER, post_in: 'C0BROKEN' },
      /could not say who can read this conversation/,
    ],
  ])('gives no figures to a workflow %s: it fails with a sentence and spends no report call', async (_, who, why) => {
    rig = await startBot();
    const { event } = eventWithPromos(rig);
    rig.slack.people.set('U0GUEST', { is_restricted: true });
    rig.slack.people.set('U0PARTNER', { is_stranger: true });
    rig.slack.conversations.set('C0PARTNER', { is_shared: true, is_ext_shared: true });
    rig.slack.conversations.set('D0PARTNERDM', { is_im: true, user: 'U0PARTNER' });
    if ('post_in' in who && who.post_in === 'C0BROKEN') rig.slack.failNext('conversations.info', 'internal_error');
    const done = await runStep(rig, 'get_event_report', { event: event.id, ...who });
    expect(done.method).toBe('functions.completeError');
    expect(String(done.args.error)).toMatch(why);
    expect(JSON.stringify(done.args)).not.toMatch(/tickets_sold|gross_revenue/);
    expect(reportCalls(rig)).toHaveLength(0);
  });

  it('waits its turn within the report limit, behind a person who asked first (no 429)', async () => {
    rig = await startBot({
      env: { TICKETING_REPORT_LIMIT: '1/400ms' },
      sim: { reportLimit: { limit: 1, windowMs: 400 } },
    });
    const [first, second] = rig.sim.catalog.events.filter((event) => event.status === 'published');
    if (!first || !second) throw new Error('no events');
    await command(rig, `report ${first.id}`);
    // The person's report is queued once who they are is known (users.info, after the ack): the
    // step asks after it has taken the window's one slot, so "asked first" is what the test forces.
    const r = rig;
    await expect.poll(() => reportCalls(r).length).toBe(1);
    const done = await runStep(rig, 'get_event_report', { event: second.id, ...REPORT_STEP_READER });
    expect(done.method).toBe('functions.completeSuccess');
    const calls = reportCalls(rig);
    expect(calls.map((call) => call.path)).toEqual([
      expect.stringContaining(first.id.slice(4)),
      expect.stringContaining(second.id.slice(4)),
    ]);
    expect(calls.every((call) => call.status === 200)).toBe(true);
    expect((calls[1]?.at ?? 0) - (calls[0]?.at ?? 0)).toBeGreaterThanOrEqual(360);
  });
});

describe('Set promo quantity', () => {
  it('refuses a person who is not a promo editor: fails, writes nothing, spends no report call, audits the refusal', async () => {
    rig = await startBot();
    const { event, promos } = eventWithPromos(rig);
    const promo = promos[0] as SimPromo;
    const before = promo.quantity;
    const done = await runStep(rig, 'set_promo_quantity', {
      run_by: { id: 'U0NOBODY', secret: 'slack-sets-this' },
      event: event.id,
      promo: promo.code,
      quantity: 5,
    });
    expect(done.method).toBe('functions.completeError');
    expect(done.args.error).toBe(
      'The person running this workflow is not a promo editor, so the promo code was not changed. An admin can add them, or a user group they are in, to PROMO_EDITORS.',
    );
    expect(posts(rig)).toHaveLength(0);
    expect(reportCalls(rig)).toHaveLength(0);
    expect(promo.quantity).toBe(before);
    expect(await audit(rig)).toEqual([
      {
        at: expect.any(String),
        userId: 'U0NOBODY',
        channelId: '',
        eventId: event.id,
        promoId: '',
        quantity: 5,
        outcome: 'refused',
        error: 'not-editor',
        code: promo.code,
        via: 'workflow',
        executionId: done.args.function_execution_id,
      },
    ]);
  });

  it('sets the quantity for an editor, by code, with the quantity before and after, audited as from a workflow', async () => {
    rig = await startBot();
    const { event, promos } = eventWithPromos(rig);
    const promo = promos[0] as SimPromo;
    const before = promo.quantity;
    const done = await runStep(rig, 'set_promo_quantity', {
      run_by: EDITOR,
      post_in: 'C0OPS',
      event: event.id,
      promo: promo.code,
      quantity: 75,
    });
    expect(done.method).toBe('functions.completeSuccess');
    const name = escapeText(event.name);
    expect(done.args.outputs).toEqual({
      event_id: event.id,
      event_name: event.name,
      promo_id: promo.id,
      promo_code: promo.code,
      previous_quantity: before,
      new_quantity: 75,
      requested_quantity: 75,
      outcome: 'updated',
      summary: `Promo code \`${promo.code}\` of *${name}* now allows *75* redemptions (it allowed ${before}).`,
    });
    expect(promo.quantity).toBe(75);
    expect(posts(rig)).toHaveLength(1);
    // The code's id came from a report fetched in the person's turn.
    expect(reportCalls(rig)).toHaveLength(1);
    expect(await audit(rig)).toEqual([
      {
        at: expect.any(String),
        userId: 'U0EDITOR',
        channelId: '',
        eventId: event.id,
        promoId: promo.id,
        quantity: 75,
        previousQuantity: before,
        outcome: 'updated',
        code: promo.code,
        via: 'workflow',
        executionId: done.args.function_execution_id,
      },
    ]);
  });

  it('acts only on an event named exactly: words of a name fail and change nothing; its whole name in any case works', async () => {
    rig = await startBot();
    const r = rig;
    const { event, promos } = eventWithPromos(r);
    const promo = promos[0] as SimPromo;
    const before = promo.quantity;
    event.name = 'Jazz Night 2026';
    // "Jazz Night 2025" left the list: its name's words would find 2026's, and set its code to 0.
    const fuzzy = await runStep(r, 'set_promo_quantity', {
      run_by: EDITOR,
      event: 'Jazz Night 2025',
      promo: promo.code,
      quantity: 0,
    });
    expect(fuzzy.method).toBe('functions.completeError');
    expect(String(fuzzy.args.error)).toMatch(/No event is named exactly "Jazz Night 2025"/);
    const words = await runStep(r, 'set_promo_quantity', {
      run_by: EDITOR,
      event: 'jazz night',
      promo: promo.code,
      quantity: 0,
    });
    expect(words.method).toBe('functions.completeError');
    expect(promo.quantity).toBe(before);
    // The whole name, in any case, is exact.
    const named = await runStep(r, 'set_promo_quantity', {
      run_by: EDITOR,
      event: ' jazz  NIGHT 2026 ',
      promo: promo.code,
      quantity: before + 1,
    });
    expect(named.method).toBe('functions.completeSuccess');
    expect(promo.quantity).toBe(before + 1);
  });

  it('refuses a cancelled event: changes nothing and spends no report call', async () => {
    rig = await startBot();
    const r = rig;
    const { event, promos } = eventWithPromos(r);
    const promo = promos[0] as SimPromo;
    const before = promo.quantity;
    event.status = 'cancelled';
    const done = await runStep(r, 'set_promo_quantity', {
      run_by: EDITOR,
      event: event.id,
      promo: promo.code,
      quantity: before + 1,
    });
    expect(done.method).toBe('functions.completeError');
    expect(String(done.args.error)).toContain('is cancelled');
    expect(promo.quantity).toBe(before);
    expect(r.sim.stats().log.filter((entry) => entry.path.endsWith('/report'))).toHaveLength(0);
  });

  it('looks the code up in a report read for the run, not one at hand from an earlier read', async () => {
    rig = await startBot();
    const r = rig;
    const { event, promos } = eventWithPromos(r);
    const promo = promos[0] as SimPromo;
    // A report read a moment ago: at hand (cached), and its codes remembered.
    await command(r, `report ${event.id}`);
    await r.slack.waitFor(() => (reportCalls(r).length === 1 ? true : undefined));
    // Read and at hand (not still in flight, which a run asking at that moment would share).
    await expect.poll(async () => (await r.bot.reports.atHand(event.id)) !== undefined).toBe(true);
    const done = await runStep(r, 'set_promo_quantity', {
      run_by: EDITOR,
      post_in: 'C0OPS',
      event: event.id,
      promo: promo.code,
      quantity: 12,
    });
    expect(done.args.error).toBeUndefined();
    expect(done.args.outputs).toMatchObject({ promo_id: promo.id, new_quantity: 12 });
    // Its own report, read in its turn for this run: a second report call.
    expect(reportCalls(r)).toHaveLength(2);
  });

  it('completes with outcome unknown when the write is never answered, and audits unknown', async () => {
    rig = await startBot();
    const { event, promos } = eventWithPromos(rig);
    const promo = promos[0] as SimPromo;
    await rig.bot.catalog.snapshot(); // the event list is read before the service starts dropping answers
    // Every attempt is applied by the service, then the connection drops before the answer.
    rig.sim.knobs.faultKinds = ['drop-after'];
    rig.sim.knobs.faultRate = 1;
    const done = await runStep(rig, 'set_promo_quantity', {
      run_by: EDITOR,
      post_in: 'C0OPS',
      event: event.id,
      promo: promo.id,
      quantity: 250,
    });
    expect(done.method).toBe('functions.completeSuccess');
    const name = escapeText(event.name);
    expect(done.args.outputs).toEqual({
      event_id: event.id,
      event_name: event.name,
      promo_id: promo.id,
      requested_quantity: 250,
      outcome: 'unknown',
      summary: `The Event Ticketing Service never answered, so it is not known whether promo code \`${promo.id}\` of *${name}* now allows *250* redemptions. Check it before running the workflow again.`,
    });
    expect(promo.quantity).toBe(250);
    expect(await audit(rig)).toMatchObject([
      { outcome: 'unknown', error: 'outcome_unknown', via: 'workflow', promoId: promo.id, quantity: 250 },
    ]);
  });

  it('applies a run Slack delivers twice once: one write, one completion, one audit record', async () => {
    rig = await startBot();
    const { event, promos } = eventWithPromos(rig);
    const promo = promos[0] as SimPromo;
    const inputs = { run_by: EDITOR, event: event.id, promo: promo.id, quantity: 33 };
    const done = await runStep(rig, 'set_promo_quantity', inputs, 'FxTWICE');
    expect(done.method).toBe('functions.completeSuccess');
    const again = await postSignedJson(
      rig.url,
      SIGNING_SECRET,
      functionExecutedBody('set_promo_quantity', inputs, 'FxTWICE', WORKFLOW_TOKEN),
    );
    expect(again.status).toBe(200);
    const finished = () => rig?.logs.filter((line) => line.includes('"msg":"Workflow step finished"')) ?? [];
    await rig.slack.waitFor(() => (finished().length === 2 ? true : undefined));
    expect(finished()[1]).toContain('"outcome":"none"');
    expect(rig.slack.calls.filter((call) => call.method.startsWith('functions.complete'))).toHaveLength(1);
    expect(posts(rig)).toHaveLength(1);
    expect(await audit(rig)).toHaveLength(1);
  });

  it('fails with a sentence when the service refuses the write, and audits it failed', async () => {
    rig = await startBot();
    const { event, promos } = eventWithPromos(rig);
    const promo = promos[0] as SimPromo;
    await rig.bot.catalog.snapshot();
    rig.sim.forceAnswer(1, 409, { error: 'conflict', message: 'The promo code is locked' });
    const done = await runStep(rig, 'set_promo_quantity', {
      run_by: EDITOR,
      event: event.id,
      promo: promo.id,
      quantity: 9,
    });
    expect(done.method).toBe('functions.completeError');
    expect(done.args.error).toBe(
      `The promo code was not changed: The Event Ticketing Service refused the request: The service refused POST /v1/events/${event.id}/promos/${promo.id}/update (409): The promo code is locked.`,
    );
    expect(await audit(rig)).toMatchObject([{ outcome: 'failed', via: 'workflow', promoId: promo.id }]);
  });

  it('fails without the person running the workflow (a scheduled run), before anything is looked up', async () => {
    rig = await startBot();
    const { event, promos } = eventWithPromos(rig);
    const done = await runStep(rig, 'set_promo_quantity', {
      event: event.id,
      promo: (promos[0] as SimPromo).code,
      quantity: 5,
    });
    expect(done.method).toBe('functions.completeError');
    expect(done.args.error).toBe(
      'The step needs to know who runs the workflow: start the workflow from a link, a shortcut or a button (or add a step a person clicks before it), so that Slack tells it.',
    );
    expect(rig.sim.stats().requests).toBe(0);
    expect(await audit(rig)).toEqual([]);
  });
});

describe('Upcoming events', () => {
  it('lists the events of the next days whose name matches the words, as text, with their count', async () => {
    rig = await startBot();
    const now = Date.now();
    const published = rig.sim.catalog.events.filter((event) => event.status === 'published');
    const soon = published.find(
      (event) => event.startsAtMs > now + 3_600_000 && event.startsAtMs < now + 2 * 86_400_000,
    );
    const later = published.find((event) => event.startsAtMs > now + 5 * 86_400_000);
    if (!soon || !later) throw new Error('no events at those times');
    soon.name = 'Zyxwv Quartet & Friends';
    later.name = 'Zyxwv Festival';
    const done = await runStep(rig, 'upcoming_events', { days: 3, words: 'zyxwv' });
    expect(done.method).toBe('functions.completeSuccess');
    const listed = (await rig.bot.catalog.snapshot()).byId.get(soon.id);
    if (!listed) throw new Error('not in the catalog');
    const outputs = done.args.outputs as Record<string, unknown>;
    expect(outputs.count).toBe(1);
    expect(String(outputs.events_text).split('\n')).toEqual([
      '*Upcoming events in the next 3 days matching "zyxwv"* (1)',
      `• *Zyxwv Quartet &amp; Friends* · ${escapeText(describeEventTime(listed))} · ${escapeText(listed.venue ?? '')} · \`${soon.id}\``,
      expect.stringMatching(new RegExp(`^Event list as of ${AS_OF}\\.$`)),
    ]);
  });

  it('says when nothing matches, and fails for days out of range', async () => {
    rig = await startBot();
    const none = await runStep(rig, 'upcoming_events', { days: 2, words: 'nothing-is-called-this' });
    expect(none.args.outputs).toEqual({
      events_text: expect.stringMatching(
        new RegExp(
          `^No upcoming events in the next 2 days matching "nothing-is-called-this"\\. Event list as of ${AS_OF}\\.$`,
        ),
      ),
      count: 0,
    });
    const wrong = await runStep(rig, 'upcoming_events', { days: 30 });
    expect(wrong.method).toBe('functions.completeError');
    expect(wrong.args.error).toBe('Days must be from 1 to 14 (the step was given 30).');
  });
});

describe('the manifest declares what the steps do', () => {
  it('declares each step with its inputs, and every output a step completes with', async () => {
    const manifest = parse(await readFile(new URL('../../manifest.yml', import.meta.url), 'utf8')) as {
      settings: Record<string, unknown>;
      functions: Record<
        string,
        {
          title: string;
          description: string;
          input_parameters: Record<string, { type: string; name: string; is_required: boolean }>;
          output_parameters: Record<string, { type: string; name: string; is_required: boolean }>;
        }
      >;
    };
    expect(manifest.settings.org_deploy_enabled).toBe(true);
    expect(Object.keys(manifest.functions)).toEqual(['get_event_report', 'set_promo_quantity', 'upcoming_events']);
    const types = new Set(['string', 'number', 'slack#/types/user_context', 'slack#/types/channel_id']);
    for (const step of Object.values(manifest.functions)) {
      expect(step.title).toBeTruthy();
      expect(step.description).toBeTruthy();
      for (const parameters of [step.input_parameters, step.output_parameters]) {
        for (const [key, parameter] of Object.entries(parameters)) {
          expect(types).toContain(parameter.type);
          expect(parameter.name).toBe(key);
          expect(typeof parameter.is_required).toBe('boolean');
        }
      }
    }
    expect(Object.keys(manifest.functions.set_promo_quantity?.input_parameters ?? {})).toEqual([
      'run_by',
      'event',
      'promo',
      'quantity',
      'post_in',
    ]);
    // Every input a step's handler reads is declared for it: Slack sends only declared inputs, so
    // an undeclared one (a promo step's post_in, once) is never there in a real workspace.
    const stepsDir = new URL('../../src/slack/listeners/workflow-steps/', import.meta.url);
    for (const file of readdirSync(stepsDir).filter((name) => name.endsWith('-step.ts'))) {
      const source = readFileSync(new URL(file, stepsDir), 'utf8');
      const callbackId = /callbackId: '([a-z_]+)'/.exec(source)?.[1];
      if (!callbackId) continue;
      const read = new Set(
        [...source.matchAll(/run\.inputs\.([a-z_]+)|run\.inputs, '([a-z_]+)'/g)].map((m) => m[1] ?? m[2]),
      );
      expect(read.size, `${file} reads inputs`).toBeGreaterThan(0);
      const declared = Object.keys(manifest.functions[callbackId]?.input_parameters ?? {});
      for (const name of read) expect(declared, `${callbackId} reads ${name}`).toContain(name);
    }
    // What the runs above completed with: every output is declared for its step.
    expect(completedOutputs.size).toBeGreaterThan(0);
    for (const [id, names] of completedOutputs) {
      const declared = Object.keys(manifest.functions[id]?.output_parameters ?? {});
      for (const name of names) expect(declared).toContain(name);
    }
  });
});
