import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { SimPromo } from '../../src/simulator/seed.js';
import { stepRequester } from '../../src/slack/reports/run-report.js';
import { BOT_TOKEN, type BotRig, SIGNING_SECRET, startBot } from '../helpers/bot.js';
import { blocksText, command, nthResponse } from '../helpers/bot-actions.js';
import type { SlackCall } from '../helpers/fake-slack.js';
import { useRedis } from '../helpers/redis-server.js';
import { functionExecutedBody, postSignedJson, REPORT_STEP_READER } from '../helpers/slack-requests.js';
import { waitFor } from '../helpers/wait-for.js';
import { redisCommand } from '../replicas/redis-command.js';

/*
 * Callers of the report flow that are not a person's message, with replicas: the bot on Redis,
 * where reports wait in the shared queue (BullMQ) and whichever replica fetches one delivers it:
 * a Get event report run is completed, a promo code looked up gets its report.
 */

const redis = useRedis();
const WORKFLOW_TOKEN = ['xwfp', '-', 'fake-', 'shared-queue'].join('');

describe('a Get event report step on Redis (the shared report queue)', () => {
  it('waits its turn in the shared queue behind a person who asked first, then completes with the report (no 429)', async () => {
    const rig = await startBot({
      env: { STORE_URL: `${redis.url}/3`, TICKETING_REPORT_LIMIT: '1/500ms' },
      sim: { reportLimit: { limit: 1, windowMs: 500 }, eventCount: 20 },
    });
    redis.closers.push(() => rig.close());
    const [first, second] = rig.sim.catalog.events.filter((event) => event.status === 'published');
    if (!first || !second) throw new Error('no events');
    await command(rig, `report ${first.id}`);
    await waitFor(() => rig.sim.stats().admittedReports === 1, { what: "the person's report call" });
    const executionId = `Fx${randomUUID().slice(0, 10)}`;
    const answer = await postSignedJson(
      rig.url,
      SIGNING_SECRET,
      functionExecutedBody(
        'get_event_report',
        { event: second.id, ...REPORT_STEP_READER },
        executionId,
        WORKFLOW_TOKEN,
      ),
    );
    expect(answer.status).toBe(200);
    const done = await rig.slack.waitFor(() => completionOf(rig.slack.calls, executionId), 20_000);
    expect(done.method).toBe('functions.completeSuccess');
    expect(done.args.outputs).toMatchObject({ event_id: second.id, event_name: second.name });
    // Completed where the report was fetched, with the app's bot token (any replica may be the one).
    expect(done.token).toBe(BOT_TOKEN);
    const calls = rig.sim.stats().log.filter((entry) => entry.path.endsWith('/report'));
    expect(calls.map((call) => call.path)).toEqual([
      expect.stringContaining(first.id.slice(4)),
      expect.stringContaining(second.id.slice(4)),
    ]);
    expect(calls.every((call) => call.status === 200)).toBe(true);
    expect((calls[1]?.at ?? 0) - (calls[0]?.at ?? 0)).toBeGreaterThanOrEqual(450);
    // One completion, and a run is nobody's App Home activity.
    expect(rig.slack.calls.filter((call) => call.method.startsWith('functions.complete'))).toHaveLength(1);
    expect((await rig.bot.activity.recent(stepRequester(REPORT_STEP_READER.run_by.id))).reports).toEqual([]);
  });

  it('fails the run in words when Redis loses its queued request', async () => {
    const url = `${redis.url}/4`;
    const rig = await startBot({
      env: { STORE_URL: url, TICKETING_REPORT_LIMIT: '1/60s' },
      sim: { reportLimit: { limit: 1, windowMs: 60_000 }, eventCount: 20 },
      compose: { progressIntervalMs: 200 },
    });
    redis.closers.push(() => rig.close());
    const [first, second] = rig.sim.catalog.events.filter((event) => event.status === 'published');
    if (!first || !second) throw new Error('no events');
    // The catalog first, at full speed: the latency is for the person's report call only.
    await rig.bot.catalog.snapshot();
    // The person's report takes the minute's one slot; the step's waits behind it.
    rig.sim.knobs.latencyMs = 1_000;
    await command(rig, `report ${first.id}`);
    await waitFor(() => rig.sim.stats().admittedReports === 1, { what: "the person's report call" });
    const executionId = `Fx${randomUUID().slice(0, 10)}`;
    await postSignedJson(
      rig.url,
      SIGNING_SECRET,
      functionExecutedBody(
        'get_event_report',
        { event: second.id, ...REPORT_STEP_READER },
        executionId,
        WORKFLOW_TOKEN,
      ),
    );
    // The step's request is in the shared queue (the metric reads it from Redis).
    await waitFor(async () => /^eventops_report_queue_depth 1$/m.test(await rig.bot.metrics.scrape()), {
      what: "the step's request in the queue",
    });
    await redisCommand(url, 'FLUSHDB');
    const done = await rig.slack.waitFor(() => completionOf(rig.slack.calls, executionId), 20_000);
    expect(done.method).toBe('functions.completeError');
    expect(done.args.error).toBe(
      'Get event report did not finish: the report was not fetched because Redis lost its place in the queue (emptied or evicted). Run the workflow again.',
    );
  });
});

/** The run's `functions.completeSuccess` or `functions.completeError`. */
const completionOf = (calls: SlackCall[], executionId: string) =>
  calls.find((call) => call.method.startsWith('functions.complete') && call.args.function_execution_id === executionId);

describe('a promo code named by its code, on Redis (the shared report queue)', () => {
  it('/events promo fetches the report in the shared queue when none is at hand, telling the person first', async () => {
    const rig = await startBot({ env: { STORE_URL: `${redis.url}/5` }, sim: { eventCount: 20 } });
    redis.closers.push(() => rig.close());
    const promo = publishedPromo(rig);
    const { responseUrl } = await command(rig, `promo ${promo.eventId} ${promo.code.toLowerCase()} 12`);
    expect(blocksText(await nthResponse(rig, responseUrl, 1))).toContain('Fetching the event');
    const proposal = await nthResponse(rig, responseUrl, 2);
    expect(blocksText(proposal)).toContain(promo.id);
    expect(rig.sim.stats().log.filter((entry) => entry.path.endsWith('/report'))).toHaveLength(1);
  });

  it('the Set promo quantity step finds the code the same way, and sets the quantity', async () => {
    const rig = await startBot({ env: { STORE_URL: `${redis.url}/6` }, sim: { eventCount: 20 } });
    redis.closers.push(() => rig.close());
    const promo = publishedPromo(rig);
    const executionId = `Fx${randomUUID().slice(0, 10)}`;
    const inputs = {
      run_by: { id: 'U0EDITOR', secret: 'slack-sets-this' },
      post_in: 'C0OPS',
      event: promo.eventId,
      promo: promo.code,
      quantity: 44,
    };
    await postSignedJson(
      rig.url,
      SIGNING_SECRET,
      functionExecutedBody('set_promo_quantity', inputs, executionId, WORKFLOW_TOKEN),
    );
    const done = await rig.slack.waitFor(() => completionOf(rig.slack.calls, executionId), 20_000);
    expect(done.method).toBe('functions.completeSuccess');
    expect(done.args.outputs).toMatchObject({ promo_id: promo.id, new_quantity: 44, outcome: 'updated' });
    expect(promo.quantity).toBe(44);
  });
});

/** A promo code of a published event. */
function publishedPromo(rig: BotRig): SimPromo {
  const promo = rig.sim.catalog.promos.find(
    (each) => rig.sim.catalog.events.find((event) => event.id === each.eventId)?.status === 'published',
  );
  if (!promo) throw new Error('no promo');
  return promo;
}
