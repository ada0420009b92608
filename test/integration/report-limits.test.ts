import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { SimEvent } from '../../src/simulator/seed.js';
import { type BotRig, SIGNING_SECRET, startBot } from '../helpers/bot.js';
import { command } from '../helpers/bot-actions.js';
import { functionExecutedBody, postSignedJson, REPORT_STEP_READER } from '../helpers/slack-requests.js';

/*
 * Issue 26 item 6: no one person, or workflow, can starve everyone. The real bot (Bolt over signed
 * requests, the simulator over loopback, a fake Slack), with one report call a minute so that
 * reports stay waiting.
 */

const WORKFLOW_TOKEN = ['xwfp', '-', 'fake-', 'workflow-token'].join('');

let rig: BotRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const reportPaths = (r: BotRig) => r.sim.stats().log.filter((entry) => entry.path.endsWith('/report'));
const published = (r: BotRig): SimEvent[] => r.sim.catalog.events.filter((event) => event.status === 'published');
/** Everything the bot said in Slack, as one string. */
const said = (r: BotRig) => JSON.stringify([r.slack.calls, r.slack.responses]);

describe('reports waiting per person and per workflow step', () => {
  it('refuses a person\u2019s report beyond REPORTS_WAITING_PER_PERSON, naming those that wait, with no call', async () => {
    rig = await startBot({ env: { TICKETING_REPORT_LIMIT: '1/60s', REPORTS_WAITING_PER_PERSON: '2' } });
    const r = rig;
    const [first, second, third, fourth] = published(r) as [SimEvent, SimEvent, SimEvent, SimEvent];
    second.name = 'Jazz & Blues <Live>';
    third.name = 'Poetry Slam';
    fourth.name = 'Opera Gala';
    // The one slot of the minute goes to the first; the next two wait.
    await command(r, `report ${first.id}`, 'U0ALICE');
    await expect.poll(() => reportPaths(r).length).toBe(1);
    // Delivered (read and recorded), so it no longer counts among the reports Alice has waiting.
    await r.slack.waitFor(() =>
      r.slack.calls.find((c) => c.method === 'chat.update' && String(c.args.text).startsWith('Report: ')),
    );
    await command(r, `report ${second.id}`, 'U0ALICE');
    await command(r, `report ${third.id}`, 'U0ALICE');
    await expect.poll(() => r.bot.reports.waiting()).toBe(2);
    await command(r, `report ${fourth.id}`, 'U0ALICE');
    await r.slack.waitFor(() => (said(r).includes('You already have 2 reports waiting') ? true : undefined));
    expect(said(r)).toContain(
      'You already have 2 reports waiting: Jazz &amp; Blues &lt;Live&gt;, Poetry Slam; wait for one to arrive.',
    );
    expect(await r.bot.reports.waiting()).toBe(2);
    expect(reportPaths(r).some((entry) => entry.path.includes(fourth.id))).toBe(false);
    // Someone else is not held back by Alice's reports.
    await command(r, `report ${fourth.id}`, 'U0BOB');
    await expect.poll(() => r.bot.reports.waiting()).toBe(3);
  });

  it('fails a report step beyond REPORT_STEPS_WAITING for the workflows one person runs, in words, with no call; another runner’s get in line', async () => {
    rig = await startBot({ env: { TICKETING_REPORT_LIMIT: '1/60s', REPORT_STEPS_WAITING: '1' } });
    const r = rig;
    const [first, second, third, fourth] = published(r) as [SimEvent, SimEvent, SimEvent, SimEvent];
    await command(r, `report ${first.id}`, 'U0ALICE');
    await expect.poll(() => reportPaths(r).length).toBe(1);
    const run = async (eventId: string, runBy: string = REPORT_STEP_READER.run_by.id) => {
      const executionId = `Fx${randomUUID().slice(0, 10)}`;
      const body = functionExecutedBody(
        'get_event_report',
        { event: eventId, ...REPORT_STEP_READER, run_by: { id: runBy, secret: 'x' } },
        executionId,
        WORKFLOW_TOKEN,
      );
      expect((await postSignedJson(r.url, SIGNING_SECRET, body)).status).toBe(200);
      return executionId;
    };
    await run(second.id);
    await expect.poll(() => r.bot.reports.waiting()).toBe(1);
    const refusedRun = await run(third.id);
    const done = await r.slack.waitFor(() =>
      r.slack.calls.find(
        (call) => call.method.startsWith('functions.complete') && call.args.function_execution_id === refusedRun,
      ),
    );
    expect(done.method).toBe('functions.completeError');
    expect(String(done.args.error)).toContain(
      '1 report step of workflows run by this person is already waiting for a report',
    );
    expect(reportPaths(r)).toHaveLength(1);
    // One workflow (one runner's) does not take every step's slot: another runner's step gets in line.
    await run(third.id, 'U0OTHERRUNNER');
    await expect.poll(() => r.bot.reports.waiting()).toBe(2);
    // A person still gets in line.
    await command(r, `report ${fourth.id}`, 'U0BOB');
    await expect.poll(() => r.bot.reports.waiting()).toBe(3);
  });
});
