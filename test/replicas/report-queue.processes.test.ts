import { describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/server.js';
import type { SlackCall } from '../helpers/fake-slack.js';
import { fakeSlackToken } from '../helpers/fake-tokens.js';
import { catalogReady, type Replica, useReplicas } from '../helpers/replicas.js';
import {
  commandBody,
  functionExecutedBody,
  postSigned,
  postSignedJson,
  REPORT_STEP_READER,
} from '../helpers/slack-requests.js';
import { sleep, waitFor } from '../helpers/wait-for.js';
import { redisCommand } from './redis-command.js';
import { startRollingReportService } from './rolling-report-service.js';

/*
 * The shared report queue as bot processes run it: replicas on one real redis-server, against the
 * simulator (behind a rolling-window report limit where that is the point) and a stand-in for Slack.
 */

const SECRET = 'report-queue-signing-secret';
const fleet = useReplicas(SECRET);
const { start } = fleet;

/** Asks for each event's report through the replicas in turn, all at once, in `channel`. */
async function askReports(through: Replica[], eventIds: string[], channel: string): Promise<void> {
  await Promise.all(
    eventIds.map(async (eventId, index) => {
      const reply = await postSigned(
        `${(through[index % through.length] as Replica).url}/slack/events`,
        SECRET,
        commandBody({
          text: `report ${eventId}`,
          channel_id: channel,
          user_id: `U0ASK${index}`,
          response_url: fleet.slack.responseUrl(`${channel}-${index}`),
        }),
      );
      expect(reply.status).toBe(200);
    }),
  );
}

/** The messages posted in `channel` since call `from`, by their ts. */
function postedIn(channel: string, from: number): string[] {
  const posts = fleet.slack.calls.filter((call) => call.method === 'chat.postMessage');
  return posts
    .map((call, index) => ({ call, ts: fleet.slack.postedTs[index] as string }))
    .filter(({ call }) => fleet.slack.calls.indexOf(call) >= from && call.args.channel === channel)
    .map(({ ts }) => ts);
}

/** The first edit of message `ts` that `matches`. */
const editOf = (ts: string, matches: (text: string) => boolean): SlackCall | undefined =>
  fleet.slack.calls.find(
    (call) => call.method === 'chat.update' && call.args.ts === ts && matches(String(call.args.text)),
  );

describe('the shared report queue across bot processes', () => {
  it('three replicas against a rolling-window report service: nine reports asked at once, 0 report 429s', async () => {
    // The simulator's own report limit stays out of the way; the rolling window in front of it is the limit.
    const sim: Simulator = await startSimulator({
      orgLimit: { limit: 60, windowMs: 1_000 },
      reportLimit: { limit: 1_000, windowMs: 1_000 },
      eventCount: 20,
    });
    // The first three report calls take 300 ms on their way in: a fixed window counted from when
    // jobs start then lets the next three arrive less than a window after them.
    const service = await startRollingReportService(sim.url, {
      limit: 3,
      windowMs: 1_000,
      slowFirst: { count: 3, ms: 300 },
    });
    const env = {
      STORE_URL: `${fleet.redis.url}/6`,
      TICKETING_API_URL: service.url,
      TICKETING_API_KEY: sim.apiKeys[0] as string,
      SLACK_API_URL: fleet.slack.apiUrl,
      TICKETING_ORG_LIMIT: '60/1s',
      TICKETING_REPORT_LIMIT: '3/1s',
    };
    const three = await Promise.all(['r1', 'r2', 'r3'].map((name) => start(name, env)));
    await Promise.all(three.map((replica) => replica.waitForLog(catalogReady, 60_000)));
    const from = fleet.slack.calls.length;
    const events = sim.catalog.events.slice(0, 9).map((event) => event.id);
    await askReports(three, events, 'C0ROLLING');
    await fleet.slack.waitFor(() => (postedIn('C0ROLLING', from).length === 9 ? true : undefined), 15_000);
    for (const ts of postedIn('C0ROLLING', from)) {
      await fleet.slack.waitFor(() => editOf(ts, (text) => text.startsWith('Report: ')), 30_000);
    }
    const stats = service.stats();
    expect(stats.rateLimited).toBe(0);
    expect(stats.admitted).toBe(9);
    expect(stats.mostInAWindow).toBeLessThanOrEqual(3);
    await Promise.all(three.map((replica) => replica.stop()));
    await service.close();
    await sim.close();
  }, 120_000);

  it('a Redis flush while reports wait: every queued message says "not fetched" within one poll, the ones being fetched still finish', async () => {
    const sim = await startSimulator({
      orgLimit: { limit: 60, windowMs: 1_000 },
      reportLimit: { limit: 3, windowMs: 60_000 },
      eventCount: 20,
    });
    const store = `${fleet.redis.url}/7`;
    const replica = await start('flushed', {
      STORE_URL: store,
      TICKETING_API_URL: sim.url,
      TICKETING_API_KEY: sim.apiKeys[0] as string,
      SLACK_API_URL: fleet.slack.apiUrl,
      TICKETING_ORG_LIMIT: '60/1s',
      TICKETING_REPORT_LIMIT: '3/60s',
    });
    await replica.waitForLog(catalogReady, 60_000);
    // Three reports are being fetched (slowly) when Redis loses everything; three wait behind them.
    sim.knobs.latencyMs = 3_000;
    const from = fleet.slack.calls.length;
    await askReports(
      [replica],
      sim.catalog.events.slice(0, 6).map((event) => event.id),
      'C0FLUSHED',
    );
    await fleet.slack.waitFor(() => (postedIn('C0FLUSHED', from).length === 6 ? true : undefined), 15_000);
    await fleet.slack.waitFor(() => (sim.stats().admittedReports === 3 ? true : undefined), 15_000);
    // The three others are in Redis (a job goes in once its message is posted, a moment after).
    await waitFor(
      async () => /^eventops_report_queue_depth 3$/m.test(await (await fetch(`${replica.url}/metrics`)).text()),
      { what: 'three reports waiting in the shared queue', timeoutMs: 15_000 },
    );
    // Every follower has shown its place once at least. Wall time: a follower's round edits nothing
    // unless the place moved, so there is nothing in Slack to wait for.
    await sleep(500);
    await redisCommand(store, 'FLUSHDB');
    const flushedAt = Date.now();
    const outcomes = await Promise.all(
      postedIn('C0FLUSHED', from).map((ts) =>
        fleet.slack.waitFor(
          () =>
            editOf(ts, (text) => text.startsWith('Report: ')) ?? editOf(ts, (text) => text.includes('was not fetched')),
          20_000,
        ),
      ),
    );
    const lost = outcomes.filter((call) => String(call.args.text).includes('was not fetched'));
    expect(lost).toHaveLength(3);
    expect(outcomes.filter((call) => String(call.args.text).startsWith('Report: '))).toHaveLength(3);
    // One poll is 2 s (each asks Redis afresh whether its job is still there); the edit takes a
    // moment (a busy bot process, up to a second; two polls would be 4 s).
    for (const call of lost) expect(call.at - flushedAt).toBeLessThan(2_000 + 1_000);
    await replica.stop();
    await sim.close();
  }, 120_000);

  it("a workflow step's report queued on a replica that is killed (SIGKILL): another fetches it and completes the run", async () => {
    const sim = await startSimulator({
      orgLimit: { limit: 60, windowMs: 1_000 },
      reportLimit: { limit: 1, windowMs: 2_000 },
      eventCount: 20,
    });
    const env = {
      STORE_URL: `${fleet.redis.url}/8`,
      TICKETING_API_URL: sim.url,
      TICKETING_API_KEY: sim.apiKeys[0] as string,
      SLACK_API_URL: fleet.slack.apiUrl,
      TICKETING_ORG_LIMIT: '60/1s',
      TICKETING_REPORT_LIMIT: '1/2s',
      // A worker takes a job before it finds no slot free and puts it back: if the doomed replica
      // dies holding it, the survivor takes it back a lock's time later, not after the default 30 s.
      REPORT_JOB_LOCK: '1s',
    };
    const [survivor, doomed] = await Promise.all([start('survivor', env), start('doomed-step', env)]);
    await Promise.all([survivor, doomed].map((replica) => replica.waitForLog(catalogReady, 60_000)));
    const [first, second] = sim.catalog.events.filter((event) => event.status === 'published');
    if (!first || !second) throw new Error('no events');
    // A person's report takes the window's one slot (through the survivor), and holds it until the
    // test lets its answer go, after the kill below: on a loaded machine a latency of a few seconds
    // ran out before the step's report reached the queue, which then fetched it at once...
    let answerReports = () => {};
    sim.knobs.holdReports = new Promise<void>((resolve) => {
      answerReports = resolve;
    });
    const from = fleet.slack.calls.length;
    await askReports([survivor], [first.id], 'C0STEPS');
    await fleet.slack.waitFor(() => (sim.stats().admittedReports === 1 ? true : undefined), 15_000);
    // ...so the step's report, asked through the doomed replica, waits in Redis when it dies.
    const executionId = `FxKILLED${Date.now()}`;
    const body = functionExecutedBody(
      'get_event_report',
      { event: second.id, ...REPORT_STEP_READER },
      executionId,
      'xwfp-not-a-real-token',
    );
    expect((await postSignedJson(`${doomed.url}/slack/events`, SECRET, body)).status).toBe(200);
    await waitFor(
      async () => /^eventops_report_queue_depth 1$/m.test(await (await fetch(`${doomed.url}/metrics`)).text()),
      { what: "the step's request in the shared queue", timeoutMs: 15_000 },
    );
    await doomed.kill();
    sim.knobs.holdReports = undefined;
    answerReports();
    const done = await fleet.slack.waitFor(
      () =>
        fleet.slack.calls.find(
          (call) => call.method.startsWith('functions.complete') && call.args.function_execution_id === executionId,
        ),
      30_000,
    );
    expect(done.method).toBe('functions.completeSuccess');
    expect(done.args.outputs).toMatchObject({ event_id: second.id, event_name: second.name });
    // Completed by the survivor, with its own bot token: the run's workflow token never left the doomed replica.
    expect(done.token).toBe(fakeSlackToken('b', 'survivor'));
    // The person still gets their report. Either replica's worker may have taken it: if the doomed
    // one had it in flight, the survivor takes it back after the lock and fetches it again, possibly
    // after the step's (so count the service's calls only once the person has theirs).
    const [personTs] = postedIn('C0STEPS', from);
    if (!personTs) throw new Error('the person was not told where their report stands');
    await fleet.slack.waitFor(() => editOf(personTs, (text) => text.startsWith('Report: ')), 30_000);
    // No 429 (a call the doomed replica had in flight is a third, answered 200 to a closed socket).
    const reports = sim.stats().log.filter((entry) => entry.path.endsWith('/report'));
    expect(reports.length).toBeGreaterThanOrEqual(2);
    expect(reports.every((entry) => entry.status === 200)).toBe(true);
    await survivor.stop();
    await sim.close();
  }, 120_000);
});
