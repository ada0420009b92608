import { describe, expect, it } from 'vitest';
import { SubscriptionStore } from '../../src/digest/subscription-store.js';
import { silentLogger } from '../../src/logger.js';
import { PROMO_CONFIRM_ACTION } from '../../src/render/promo-blocks.js';
import { type Simulator, startSimulator } from '../../src/simulator/server.js';
import { openStore } from '../../src/store/open-store.js';
import { buttonValue } from '../helpers/bot-actions.js';
import { startRedis } from '../helpers/redis-server.js';
import { catalogReady, type Replica, useReplicas } from '../helpers/replicas.js';
import { blockActionBody, commandBody, postSigned } from '../helpers/slack-requests.js';
import { sleep } from '../helpers/wait-for.js';

/*
 * Several bot processes, as a deployment with replicas runs them: each is `src/main.ts` in its own
 * process, on one real redis-server, against the simulator and a stand-in for Slack's Web API.
 */

const SECRET = 'replica-signing-secret';
/**
 * How long one awaited condition may take: generous for a machine whose cores are all taken (the
 * bot processes, this process's Slack and service all share them), yet a hang still ends the test.
 */
const BOUND_MS = 120_000;
/** A test's own bound: several such waits in a row. */
const TEST_MS = 600_000;
const fleet = useReplicas(SECRET);
const { start } = fleet;

function replicaEnv(sim: Simulator, db: number, extra: Record<string, string> = {}): Record<string, string> {
  return {
    STORE_URL: `${fleet.redis.url}/${db}`,
    TICKETING_API_URL: sim.url,
    TICKETING_API_KEY: sim.apiKeys[0] as string,
    SLACK_API_URL: `${fleet.slack.apiUrl}`,
    ...extra,
  };
}

/** `HH:MM` in UTC, `minutesAgo` before now. */
function utcTimeAgo(minutesAgo: number): string {
  const at = new Date(Date.now() - minutesAgo * 60_000);
  return `${String(at.getUTCHours()).padStart(2, '0')}:${String(at.getUTCMinutes()).padStart(2, '0')}`;
}

/** The first post to a response URL, as JSON. */
const responseAt = (url: string) => {
  const path = new URL(url).pathname;
  return fleet.slack.responses.find((call) => call.method === path)?.args;
};

const digestPosts = (channel: string) =>
  fleet.slack.calls.filter(
    (call) =>
      call.method === 'chat.postMessage' &&
      call.args.channel === channel &&
      (call.args.metadata as { event_type?: string } | undefined)?.event_type !== undefined,
  );

describe('three replicas on one Redis', () => {
  it(
    'crawl once for all, stay within the budget at three times the demand (0 x 429), post each digest once',
    async () => {
      // 3,000 events: a crawl is 30 pages, a whole window of a 30-per-second budget.
      const orgLimit = { limit: 30, windowMs: 1_000 };
      // Each promo change reads its code's quantity now (a report) before it asks to confirm: the
      // report limit is made generous, so the proposals do not wait minutes for their turns.
      const sim = await startSimulator({
        orgLimit,
        reportLimit: { limit: 1_000, windowMs: 1_000 },
        eventCount: 3_000,
        windowKind: 'sliding',
      });
      const db = 1;
      // Digests due ten minutes ago (inside the grace period): every replica's catch-up finds them.
      const store = await openStore(`${fleet.redis.url}/${db}`);
      const subscriptions = new SubscriptionStore(store.keyValue, silentLogger);
      const channels = ['C0REPL1', 'C0REPL2', 'C0REPL3', 'C0REPL4'];
      for (const channelId of channels) {
        await subscriptions.put({
          channelId,
          time: utcTimeAgo(10),
          timezone: 'UTC',
          days: 3,
          skipEmpty: false,
          createdBy: 'U0EDITOR',
          createdAt: new Date().toISOString(),
          status: 'active',
        });
      }
      await store.close();

      const env = replicaEnv(sim, db, {
        TICKETING_ORG_LIMIT: '30/1s',
        TICKETING_REPORT_LIMIT: '1000/1s',
        REPORTS_WAITING_PER_PERSON: '100',
        PROMO_EDITORS: 'U0EDITOR',
      });
      const three = await Promise.all(['a', 'b', 'c'].map((name) => start(name, env)));
      await Promise.all(three.map((replica) => replica.waitForLog(catalogReady, BOUND_MS)));
      // One crawl for the three of them: 30 pages, not 90.
      const listRequests = () => sim.stats().log.filter((entry) => entry.path.startsWith('/v1/events?')).length;
      expect(listRequests()).toBe(30);
      expect(
        three.flatMap((replica) => replica.logs.filter((line) => line.msg === 'Event catalog refreshed')),
      ).toHaveLength(1);

      // 90 promo changes, 30 through each replica, each proposed on one replica and confirmed on the
      // next, as Socket Mode may deliver the click anywhere. Each proposal first reads its code's
      // quantity now (a report, in the person's turn): proposed one after another, then the 90
      // confirmations at once, the burst measured: three windows' worth of writes.
      // A cancelled event's codes are refused before any proposal.
      const cancelled = new Set(
        sim.catalog.events.filter((event) => event.status === 'cancelled').map((event) => event.id),
      );
      const promos = sim.catalog.promos.filter((promo) => !cancelled.has(promo.eventId)).slice(0, 90);
      expect(promos).toHaveLength(90);
      const proposals: Record<string, unknown>[] = [];
      for (const [index, promo] of promos.entries()) {
        const proposer = three[index % 3] as Replica;
        const proposalPath = new URL(fleet.slack.responseUrl(`propose-${index}`)).pathname;
        await postSigned(
          `${proposer.url}/slack/events`,
          SECRET,
          commandBody({
            text: `promo ${promo.eventId} ${promo.id} ${100 + index}`,
            response_url: fleet.slack.responseUrl(`propose-${index}`),
          }),
        );
        proposals.push(
          await fleet.slack.waitFor(
            () =>
              fleet.slack.responses.find(
                (call) =>
                  call.method === proposalPath && JSON.stringify(call.args.blocks ?? []).includes(PROMO_CONFIRM_ACTION),
              )?.args,
            BOUND_MS,
          ),
        );
      }
      // The 90 confirmations at once, then one wait for all their answers (one look at the answers
      // every 10 ms, not 90: this process also plays Slack and the service, which the looks starve).
      const confirmPaths = promos.map((_, index) => new URL(fleet.slack.responseUrl(`confirm-${index}`)).pathname);
      const started = Date.now();
      await Promise.all(
        promos.map((_, index) =>
          postSigned(
            `${(three[(index + 1) % 3] as Replica).url}/slack/events`,
            SECRET,
            blockActionBody({
              actionId: PROMO_CONFIRM_ACTION,
              value: buttonValue(proposals[index] as Record<string, unknown>, PROMO_CONFIRM_ACTION),
              responseUrl: fleet.slack.responseUrl(`confirm-${index}`),
            }),
          ),
        ),
      );
      const answers = await fleet.slack.waitFor(() => {
        const first = new Map<string, Record<string, unknown>>();
        for (const call of fleet.slack.responses) if (!first.has(call.method)) first.set(call.method, call.args);
        const found = confirmPaths.map((path) => first.get(path));
        return found.every((answer) => answer !== undefined) ? found : undefined;
      }, BOUND_MS);
      const elapsed = Date.now() - started;
      for (const [index, promo] of promos.entries()) {
        expect(JSON.stringify(answers[index]?.blocks ?? [])).toContain(`now allows *${100 + index}*`);
        expect(promo.quantity).toBe(100 + index);
      }
      const stats = sim.stats();
      expect(stats.rateLimited).toBe(0);
      expect(stats.byStatus['429'] ?? 0).toBe(0);
      // Never more than the budget in any window-long span, wherever it starts.
      expect(stats.mostInAnySpan.organization).toBeLessThanOrEqual(orgLimit.limit);
      // 90 writes at 30 a window cannot all go within two windows.
      expect(elapsed).toBeGreaterThanOrEqual(2 * orgLimit.windowMs);

      // Every replica's catch-up is over (each says so): a duplicate would have been posted by now.
      await Promise.all(
        three.map((replica) => replica.waitForLog((line) => line.msg === 'Digest catch-up done', BOUND_MS)),
      );
      for (const channel of channels) expect(digestPosts(channel)).toHaveLength(1);

      // Readiness and metrics on every replica.
      for (const replica of three) {
        expect((await fetch(`${replica.url}/readyz`)).status).toBe(200);
        const metrics = await (await fetch(`${replica.url}/metrics`)).text();
        expect(metrics).toMatch(
          /eventops_api_requests_total\{endpoint="POST \/v1\/events\/\{id\}\/promos\/\{id\}\/update",status="200"\} \d+/,
        );
      }
      await Promise.all(three.map((replica) => replica.stop()));
      await sim.close();
    },
    TEST_MS,
  );

  it(
    'a replica killed (SIGKILL) with reports in hand and queued loses none (nor its subscriptions): another finishes each message',
    async () => {
      const sim = await startSimulator({
        orgLimit: { limit: 60, windowMs: 1_000 },
        reportLimit: { limit: 3, windowMs: 2_000 },
        eventCount: 20,
      });
      const env = replicaEnv(sim, 2, {
        TICKETING_ORG_LIMIT: '60/1s',
        TICKETING_REPORT_LIMIT: '3/2s',
        // Long enough that a living survivor never misses renewing its hold (every 5 s) on a machine
        // whose cores are all taken, which would let the other fetch that report again (a clean-clone
        // run with 1 s saw 8 calls); the dead replica's jobs are taken over within about two of it.
        REPORT_JOB_LOCK: '10s',
        // The report asked again at the end is still cached however long the takeover took.
        TICKETING_REPORT_CACHE_TTL: '10m',
      });
      const doomed = await start('doomed', env);
      await doomed.waitForLog((line) => line.msg === 'Event catalog refreshed', BOUND_MS);
      // A subscription made through the doomed replica outlives it.
      const subscribed = fleet.slack.responseUrl('digest-on');
      await postSigned(
        `${doomed.url}/slack/events`,
        SECRET,
        commandBody({ text: 'digest on 07:45 Europe/Oslo', channel_id: 'C0DIGEST', response_url: subscribed }),
      );
      await fleet.slack.waitFor(() => responseAt(subscribed), BOUND_MS);
      // Report calls are now held unanswered until the replica is dead, however long it takes to
      // admit the three on a busy machine: the doomed replica will die holding the first three.
      let answerReports: () => void = () => {};
      sim.knobs.holdReports = new Promise<void>((resolve) => {
        answerReports = resolve;
      });
      const events = sim.catalog.events.slice(0, 4);
      const firstPost = fleet.slack.calls.length;
      for (const [index, event] of events.entries()) {
        const reply = await postSigned(
          `${doomed.url}/slack/events`,
          SECRET,
          commandBody({
            text: `report ${event.id}`,
            channel_id: 'C0REPORTS',
            user_id: `U0ASKER${index}`,
            response_url: fleet.slack.responseUrl(`report-${index}`),
          }),
        );
        expect(reply.status).toBe(200);
      }
      const queuedPosts = () =>
        fleet.slack.calls
          .slice(firstPost)
          .filter((call) => call.method === 'chat.postMessage' && call.args.channel === 'C0REPORTS');
      await fleet.slack.waitFor(() => (queuedPosts().length === 4 ? true : undefined), BOUND_MS);
      // The first three are being fetched by the doomed replica when it dies: the service has taken
      // them from the report allowance and not yet answered.
      await fleet.slack.waitFor(() => (sim.stats().admittedReports === 3 ? true : undefined), BOUND_MS);
      const answeredReports = () => sim.stats().log.filter((entry) => entry.path.endsWith('/report')).length;
      expect(answeredReports()).toBe(0);
      await doomed.kill();
      // Its three calls are answered to closed connections; the survivors' are not held.
      sim.knobs.holdReports = undefined;
      answerReports();

      const survivors = await Promise.all(['d', 'e'].map((name) => start(name, env)));
      // The four messages (posted in whatever order the commands were handled) each end as a report,
      // and between them they hold the four events' reports.
      const postedTs = queuedPosts().map(
        (call) => fleet.slack.postedTs[fleet.slack.calls.filter((c) => c.method === 'chat.postMessage').indexOf(call)],
      );
      const reported: string[] = [];
      for (const ts of postedTs) {
        const final = await fleet.slack
          .waitFor(
            () =>
              fleet.slack.calls.find(
                (call) =>
                  call.method === 'chat.update' && call.args.ts === ts && String(call.args.text).startsWith('Report: '),
              ),
            BOUND_MS,
          )
          .catch((error: unknown) => {
            // What the message last said, and what the survivors warned of: a failure explains itself.
            const edits = fleet.slack.calls.filter((call) => call.method === 'chat.update' && call.args.ts === ts);
            const warnings = survivors.flatMap((replica) =>
              replica.logs
                .filter((line) => line.level === 'warn' || line.level === 'error')
                .map((line) => `${replica.name}: ${line.msg}`),
            );
            throw new Error(
              `message ${ts} never showed its report; its edits: ${JSON.stringify(edits.map((call) => call.args.text))}; survivors warned: ${JSON.stringify(warnings)}`,
              { cause: error },
            );
          });
        const id = events.find((event) => JSON.stringify(final.args.blocks).includes(event.id))?.id;
        reported.push(id ?? 'none');
      }
      expect(reported.sort()).toEqual(events.map((event) => event.id).sort());
      // Each finished once, in its own message: no report posted as a new message.
      const reports = fleet.slack.calls.filter(
        (call) => call.method === 'chat.postMessage' && String(call.args.text).startsWith('Report: '),
      );
      expect(reports).toHaveLength(0);
      // The service took the doomed replica's three (their answers go to closed connections); the
      // survivors fetched those three again and the fourth: seven report calls, four delivered.
      const survivorWarnings = () =>
        JSON.stringify(
          survivors.flatMap((replica) =>
            replica.logs.filter((line) => line.level === 'warn').map((line) => `${replica.name}: ${line.msg}`),
          ),
        );
      expect(sim.stats().admittedReports, survivorWarnings()).toBe(7);
      const status = fleet.slack.responseUrl('digest-status');
      await postSigned(
        `${(survivors[0] as Replica).url}/slack/events`,
        SECRET,
        commandBody({ text: 'digest status', channel_id: 'C0DIGEST', response_url: status }),
      );
      expect(JSON.stringify((await fleet.slack.waitFor(() => responseAt(status), BOUND_MS)).blocks)).toContain(
        '07:45 Europe/Oslo',
      );
      // Asked again on another replica within the cache's minute: answered from Redis, no request.
      const again = fleet.slack.calls.length;
      await postSigned(
        `${(survivors[1] as Replica).url}/slack/events`,
        SECRET,
        commandBody({
          text: `report ${events[0]?.id}`,
          channel_id: 'C0REPORTS',
          user_id: 'U0ASKER9',
          response_url: fleet.slack.responseUrl('report-again'),
        }),
      );
      await fleet.slack.waitFor(
        () =>
          fleet.slack.calls
            .slice(again)
            .find((call) => call.method === 'chat.update' && String(call.args.text).startsWith('Report: ')),
        BOUND_MS,
      );
      expect(sim.stats().admittedReports, survivorWarnings()).toBe(7);
      await Promise.all(survivors.map((replica) => replica.stop()));
      await sim.close();
    },
    TEST_MS,
  );

  it('shuts down on SIGTERM within seconds even when Redis has gone away', async () => {
    const ownRedis = await startRedis();
    const sim = await startSimulator({ eventCount: 20 });
    const replica = await start('orphaned', { ...replicaEnv(sim, 0), STORE_URL: `${ownRedis.url}/0` });
    await replica.waitForLog((line) => line.msg === 'Event catalog refreshed');
    await ownRedis.stop();
    // The clients are reconnecting before the signal: the report worker says it lost Redis, and the
    // store's client has been at it a while (every 2 s at most, for as long as Redis is away:
    // src/store/redis-store.ts), wall time in the replica's process.
    await Promise.all([
      replica.waitForLog((line) => line.msg === 'The report worker lost Redis for a moment'),
      sleep(2_000),
    ]);
    const started = Date.now();
    await replica.stop();
    // Nothing waited out its closing time (5 s each): a gone Redis's connections are dropped, not asked to quit.
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(replica.logs.filter((line) => line.msg === 'A connection did not close in time; leaving it')).toEqual([]);
    expect(replica.logs.some((line) => line.msg === 'Stopped')).toBe(true);
    await sim.close();
  }, 60_000);
});
