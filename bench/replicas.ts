/**
 * `npm run bench` (second part): several replicas on one redis-server.
 * 1. Two and three replica processes sharing the budget at 2x and 3x the organization's limit
 *    (180 per 1 s window standing for the spec's minute): 429s, budget used, wall time against
 *    the floor.
 * 2. Slash-command ack latency of two bot processes while the API is slow and the budget spent.
 * 3. Resident memory of a bot process idle and after crawling 10,000 events.
 * 4. What keeping people informed costs Redis: 200 queued reports over three bot processes.
 *
 * Options (environment):
 * - `BENCH_ONLY=budget|ack|memory|reports` runs one part.
 * - `BENCH_BUILT_SOURCES=1` measures memory on the build of the sources the other parts (and the
 *   processes tests) start (test/helpers/built-sources.ts: esbuild, kept by the sources' content)
 *   instead of running `npm run build` and `dist/main.js`: `dist/` is left alone.
 * - `BENCH_SHORT=1` runs every part smaller, to prove the bench still runs
 *   (test/bench/benches-run.processes.test.ts), not for its figures: 250 ms windows and the 3x
 *   demand only (not 2x and 3x); 40 commands (not 200); a 2,000-event crawl (not 10,000) and 0.5 s
 *   idle (not 2 s); 30 queued reports (not 200), counted over 2 s (not 10) after 1 s (not 3).
 */
import { type ChildProcess, execSync, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { type Simulator, startSimulator } from '../src/simulator/server.js';
import { startFakeSlack } from '../test/helpers/fake-slack.js';
import { startRedis } from '../test/helpers/redis-server.js';
import { type Replica, startReplica } from '../test/helpers/replicas.js';
import { commandBody, postSigned } from '../test/helpers/slack-requests.js';
import { redisCommand } from '../test/replicas/redis-command.js';
import { measureBatchMs } from './batch-time.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** `BENCH_SHORT=1`: a quicker run (see above). */
const SHORT = process.env.BENCH_SHORT === '1';
const WINDOW_MS = SHORT ? 250 : 1_000;
const ORG = { limit: 180, windowMs: WINDOW_MS };
const LATENCY_MS = 5;
const BATCH_MS = await measureBatchMs({ windowMs: WINDOW_MS, latencyMs: LATENCY_MS, batch: ORG.limit });
const redis = await startRedis();
// Should the run stop short (an error, process.exit), the redis-server goes with it: stop() signals it at once.
process.once('exit', () => void redis.stop());
const out = (line: string) => process.stdout.write(`${line}\n`);
/** `BENCH_ONLY=budget|ack|memory|reports` runs one part. */
const part = (name: string) => !process.env.BENCH_ONLY || process.env.BENCH_ONLY === name;

interface Worker {
  child: ChildProcess;
  ready: Promise<void>;
  finished: Promise<number>;
}

function startWorker(demand: number, key: string): Worker {
  // The worker reads "go" on stdin and exits when it ends, so it never outlives the benchmark.
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/replica-worker.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      STORE_URL: redis.url,
      ORG_LIMIT: String(ORG.limit),
      WINDOW_MS: String(WINDOW_MS),
      DEMAND: String(demand),
      BUDGET_KEY: key,
    },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  let markReady: () => void = () => {};
  let markFinished: (at: number) => void = () => {};
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  const finished = new Promise<number>((resolve) => {
    markFinished = resolve;
  });
  lines.on('line', (line) => {
    if (line === 'ready') markReady();
    else if (line.startsWith('{')) markFinished((JSON.parse(line) as { finishedAt: number }).finishedAt);
  });
  return { child, ready, finished };
}

/** Admitted requests over the capacity of the full windows the run touched (the last is partial). */
function budgetUsed(sim: Simulator): string {
  const windows = sim.stats().organizationWindows;
  const full = windows.slice(0, -1);
  const share = full.length > 0 ? full.reduce((sum, n) => sum + n, 0) / (full.length * ORG.limit) : 1;
  return `${(share * 100).toFixed(1)}% (${windows.join('/')})`;
}

if (part('budget')) {
  const rows: string[][] = [
    ['replicas', 'demand', 'requests', '429s', 'budget used', 'wall ms', 'floor ms', 'over floor'],
  ];
  let run = 0;
  for (const replicas of [2, 3]) {
    for (const times of SHORT ? [3] : [2, 3]) {
      const demand = times * ORG.limit;
      // One budget key for the whole run: the replicas share it.
      const key = `bench:budget:${++run}`;
      const workers = Array.from({ length: replicas }, (_, i) =>
        startWorker(Math.floor(demand / replicas) + (i < demand % replicas ? 1 : 0), key),
      );
      await Promise.all(workers.map((worker) => worker.ready));
      // The service starts now, as in the one-process benchmark: its first window starts with the run.
      const sim = await startSimulator({ orgLimit: ORG, latencyMs: LATENCY_MS });
      const goAt = Date.now();
      for (const worker of workers) worker.child.stdin?.write(`go ${sim.url} ${sim.apiKeys[0]}\n`);
      const finishedAt = Math.max(...(await Promise.all(workers.map((worker) => worker.finished))));
      const wallMs = finishedAt - goAt;
      // The first window admits a whole window's worth; each further window's worth waits for a turn.
      const floorMs = (times - 1) * WINDOW_MS + BATCH_MS;
      const stats = sim.stats();
      rows.push([
        String(replicas),
        `${times}x (${demand})`,
        String(stats.requests),
        String(stats.rateLimited),
        budgetUsed(sim),
        String(wallMs),
        String(floorMs),
        `${(((wallMs - floorMs) / floorMs) * 100).toFixed(1)}%`,
      ]);
      for (const worker of workers) worker.child.kill();
      await sim.close();
    }
  }
  const widths = (rows[0] ?? []).map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length)));
  out(
    `\nReplicas sharing one budget in Redis: ${ORG.limit} per ${WINDOW_MS} ms window, server latency ${LATENCY_MS} ms.`,
  );
  out(
    `Floor: (demand/limit - 1) windows + ${BATCH_MS} ms (one window's ${ORG.limit} requests with no limit in the way).\n`,
  );
  for (const row of rows) out(`| ${row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(' | ')} |`);
}
const SECRET = 'bench-signing-secret';
const slack = await startFakeSlack();
const env = (sim: Simulator, db: number): Record<string, string> => ({
  STORE_URL: `${redis.url}/${db}`,
  TICKETING_API_URL: sim.url,
  TICKETING_API_KEY: sim.apiKeys[0] as string,
  SLACK_API_URL: slack.apiUrl,
});

if (part('ack')) {
  // Ack latency: two bot processes, the API answering in 2 s, another key having spent the window.
  const slowSim = await startSimulator({ orgLimit: { limit: 180, windowMs: 60_000 }, eventCount: 200 });
  const pair: Replica[] = [];
  for (const name of ['ack-a', 'ack-b']) {
    pair.push(await startReplica({ name, env: env(slowSim, 3), signingSecret: SECRET }));
  }
  await new Promise((resolve) => setTimeout(resolve, 1_000)); // the boot-time catalog crawls
  slowSim.knobs.latencyMs = 2_000;
  const other = slowSim.apiKeys[1] as string;
  await Promise.all(
    Array.from({ length: 200 }, () =>
      fetch(`${slowSim.url}/v1/events?limit=1`, { headers: { 'service-api-key': other } }).then((r) => r.text()),
    ),
  );
  const ids = slowSim.catalog.events.map((event) => event.id);
  const texts = (i: number) =>
    [`list`, `show ${ids[i % ids.length]}`, `report ${ids[i % ids.length]}`, `find gala`, `help`][i % 5] as string;
  const acks: number[] = [];
  const commands = SHORT ? 40 : 200;
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < commands) {
        const i = next++;
        const replica = pair[i % pair.length] as Replica;
        const reply = await postSigned(
          `${replica.url}/slack/events`,
          SECRET,
          commandBody({ text: texts(i), response_url: slack.responseUrl(`ack-${i}`), user_id: `U0BENCH${i % 7}` }),
        );
        if (reply.status !== 200) throw new Error(`command ${i} answered ${reply.status}`);
        acks.push(reply.ackMs);
      }
    }),
  );
  acks.sort((a, b) => a - b);
  const quantile = (q: number) => (acks[Math.min(acks.length - 1, Math.floor(q * acks.length))] ?? 0).toFixed(1);
  out(`\nSlash-command ack, 2 replicas, API latency 2000 ms, budget spent by another key: ${commands} commands`);
  out(
    `(list, show, report, find, help; 4 at a time): p50 ${quantile(0.5)} ms, p99 ${quantile(0.99)} ms, max ${quantile(1)} ms.`,
  );
  slowSim.knobs.latencyMs = 0;
  await Promise.all(pair.map((replica) => replica.kill()));
  await slowSim.close();
}
if (part('memory')) {
  // Measured on the built JavaScript, as the image runs it (tsx would add its compiler).
  const build = process.env.BENCH_BUILT_SOURCES ? 'sources' : 'dist';
  if (build === 'dist') execSync('npm run build', { cwd: ROOT, stdio: 'ignore' });
  // Memory: resident set of one bot process, idle, and after crawling 10,000 events.
  async function residentMiB(replica: Replica): Promise<number> {
    const metrics = await (await fetch(`${replica.url}/metrics`)).text();
    const line = metrics.split('\n').find((each) => each.startsWith('process_resident_memory_bytes '));
    return Math.round(Number(line?.split(' ')[1]) / 1024 / 1024);
  }
  const memory: string[] = [];
  const crawled = SHORT ? 2_000 : 10_000;
  // Each its own database: on a shared one the second would take the first's published catalog (20
  // events) as its own, and crawl only when that is due (a minute on, the bot's default window).
  for (const [label, eventCount, db] of [
    ['idle (20 events)', 20, 4],
    [`after a ${crawled.toLocaleString('en-US')}-event crawl`, crawled, 6],
  ] as const) {
    const sim = await startSimulator({ orgLimit: ORG, eventCount });
    const replica = await startReplica({
      build,
      name: 'memory',
      env: { ...env(sim, db), LOG_LEVEL: 'info' },
      signingSecret: SECRET,
    });
    await replica.waitForLog((line) => line.msg === 'Event catalog refreshed', 60_000);
    await new Promise((resolve) => setTimeout(resolve, SHORT ? 500 : 2_000));
    memory.push(`${label}: ${await residentMiB(replica)} MiB`);
    await replica.kill();
    await sim.close();
  }
  out(
    `\nResident memory of one bot process (${build === 'dist' ? 'node dist/main.js' : 'node main.js built by esbuild'}, ` +
      `Redis mode, ${process.version}): ${memory.join('; ')}.`,
  );
}
if (part('reports')) {
  // 200 people wait for reports the service gives 3 a minute: every replica keeps its people's
  // messages up to date (progress every 2 s). What does that cost Redis, per second?
  const sim = await startSimulator({ eventCount: 250, reportLimit: { limit: 3, windowMs: 60_000 } });
  const three = await Promise.all(
    ['reports-a', 'reports-b', 'reports-c'].map((name) =>
      startReplica({ name, env: env(sim, 5), signingSecret: SECRET }),
    ),
  );
  const catalogReady = (line: Record<string, unknown>) =>
    line.msg === 'Event catalog refreshed' || line.msg === 'Event catalog taken from another replica';
  await Promise.all(three.map((replica) => replica.waitForLog(catalogReady, 60_000)));
  const ids = sim.catalog.events.map((event) => event.id);
  const asked = SHORT ? 30 : 200;
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < asked) {
        const i = next++;
        const reply = await postSigned(
          `${(three[i % 3] as Replica).url}/slack/events`,
          SECRET,
          commandBody({
            text: `report ${ids[i]}`,
            channel_id: 'C0BENCHREPORTS',
            user_id: `U0BENCH${i}`,
            response_url: slack.responseUrl(`queued-${i}`),
          }),
        );
        if (reply.status !== 200) throw new Error(`report command ${i} answered ${reply.status}`);
      }
    }),
  );
  const depth = async () => {
    const metrics = await (await fetch(`${(three[0] as Replica).url}/metrics`)).text();
    const line = metrics.split('\n').find((each) => each.startsWith('eventops_report_queue_depth '));
    return Number(line?.split(' ')[1] ?? 0);
  };
  const queued = asked - 3;
  for (let i = 0; i < 600 && (await depth()) < queued; i += 1) await new Promise((r) => setTimeout(r, 100));
  // Let every follower reach its steady round before counting.
  await new Promise((resolve) => setTimeout(resolve, SHORT ? 1_000 : 3_000));
  const commandStats = async () => {
    const info = String(await redisCommand(redis.url, 'INFO', 'commandstats'));
    const calls = new Map<string, number>();
    for (const match of info.matchAll(/cmdstat_([^:]+):calls=(\d+)/g)) calls.set(match[1] as string, Number(match[2]));
    const stats = String(await redisCommand(redis.url, 'INFO', 'stats'));
    return { calls, total: Number(/total_commands_processed:(\d+)/.exec(stats)?.[1] ?? 0) };
  };
  const seconds = SHORT ? 2 : 10;
  const before = await commandStats();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1_000));
  const after = await commandStats();
  const perSecond = (after.total - before.total) / seconds;
  const top = [...after.calls]
    .map(([name, calls]) => [name, (calls - (before.calls.get(name) ?? 0)) / seconds] as const)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 4)
    .map(([name, rate]) => `${name} ${rate.toFixed(0)}/s`);
  const waiting = await depth();
  out(`\nReports queued over 3 replicas: ${asked} asked, ${waiting} waiting (3 a minute), progress every 2000 ms:`);
  out(
    `Redis ${perSecond.toFixed(0)} commands/s over ${seconds} s, ${((perSecond * 2) / waiting).toFixed(1)} a person a round (most: ${top.join(', ')}).`,
  );
  await Promise.all(three.map((replica) => replica.kill()));
  await sim.close();
}
await slack.close();
await redis.stop();
