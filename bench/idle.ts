/**
 * Idle memory (issue 34 item 7). One bot process (`node dist/main.js` with the node flags of the
 * Dockerfile's CMD, as the image runs it) against the simulator and a fake Slack Web API, both in
 * this process, on SQLite in memory and on a redis-server of its own. Each is started three times
 * and left alone once its catalog is crawled; printed: the median resident memory (VmRSS) 2 s
 * later (as bench/ack.ts reads it before its load) and its range, V8's heap then, and the same
 * without the image's flags to show what they save.
 *
 * Why the flags: starting up (loading Bolt, undici, zod and the bot's modules, the first crawl)
 * grows V8's young generation to its 16 MiB semi-space maximum, and V8 gives those pages back only
 * when its memory reducer runs, 15-30 s into the quiet: `--max-semi-space-size=1` keeps it at
 * 1 MiB. The first request through undici compiles its HTTP parser (WebAssembly), and TurboFan's
 * compile of it mallocs 36 MiB; glibc keeps up to 10 MiB of that resident, or not, from one start
 * to the next: `--liftoff-only` compiles it with the baseline compiler only (6 MiB at most), and
 * `--v8-pool-size=1` leaves one V8 worker thread, so fewer malloc arenas hold freed memory.
 *
 * Options (environment): `BENCH_RUNS=n` starts each bot n times (default 3); `BENCH_BOT_NODE=<path>`
 * runs the bot on another node (the image's Node 24: see bench/bot-env.ts); `BENCH_IDLE_MS`
 * overrides the 2 s wait (40000 shows the figure after the memory reducer); `BENCH_NO_BUILD=1` runs
 * the `dist/` already built; `BENCH_BUILT_SOURCES=1` runs the tests' cached build of the sources
 * instead of building `dist/`; `BENCH_SHORT=1` starts each bot once (to prove the bench still runs).
 */

import { execSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startSimulator } from '../src/simulator/server.js';
import { startFakeSlack } from '../test/helpers/fake-slack.js';
import { startRedis } from '../test/helpers/redis-server.js';
import { benchBotEnv, botNode, botNodeVersion } from './bot-env.js';
import { imageNodeFlags } from './image-node-flags.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SHORT = process.env.BENCH_SHORT === '1';
const RUNS = Number(process.env.BENCH_RUNS ?? (SHORT ? 1 : 3));
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 2_000);
const out = (line: string) => process.stdout.write(`${line}\n`);

const MAIN = process.env.BENCH_BUILT_SOURCES
  ? await (await import('../test/helpers/built-sources.js')).builtScript('src/main.ts')
  : 'dist/main.js';
if (!process.env.BENCH_NO_BUILD && !process.env.BENCH_BUILT_SOURCES)
  execSync('npm run build', { cwd: ROOT, stdio: 'ignore' });
const slack = await startFakeSlack();
const sim = await startSimulator({ latencyMs: 5 });
const redis = await startRedis();

/** This process's memory as /proc says it, in MiB. */
function procStatus(pid: number): { rss: number; anon: number; file: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (key: string) => Number(status.match(new RegExp(`${key}:\\s+(\\d+)`))?.[1]) / 1024;
  return { rss: kib('VmRSS'), anon: kib('RssAnon'), file: kib('RssFile') };
}

interface Idle {
  rss: number;
  anon: number;
  file: number;
  heapUsed: number;
  heapTotal: number;
}

/** Starts one bot, waits for its catalog and `IDLE_MS` more, reads its memory, stops it. */
async function idleOnce(name: string, flags: string[], storeUrl: string): Promise<Idle> {
  const child = spawn(botNode, [...flags, MAIN], {
    cwd: ROOT,
    env: benchBotEnv(name, 'bench-idle-signing-secret', {
      SLACK_API_URL: slack.apiUrl,
      STORE_URL: storeUrl,
      TICKETING_API_URL: sim.url,
      TICKETING_API_KEY: sim.apiKeys[0] as string,
    }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  const exited = once(child, 'exit');
  try {
    const lines: string[] = [];
    let port = 0;
    await new Promise<void>((resolve, reject) => {
      createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', (line) => {
        lines.push(line);
        try {
          const parsed = JSON.parse(line) as { msg?: string; port?: number };
          if (parsed.msg?.startsWith('eventops is listening') && parsed.port) port = parsed.port;
          if (parsed.msg === 'Event catalog refreshed') resolve();
        } catch {}
      });
      void exited.then(() => reject(new Error(`${name} exited: ${lines.join('\n')}`)));
    });
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const memory = procStatus(child.pid as number);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const mib = (metric: string) =>
      Number(
        metrics
          .split('\n')
          .find((line) => line.startsWith(`${metric} `))
          ?.split(' ')[1],
      ) /
      1024 /
      1024;
    return { ...memory, heapUsed: mib('nodejs_heap_size_used_bytes'), heapTotal: mib('nodejs_heap_size_total_bytes') };
  } finally {
    child.kill('SIGTERM');
    await exited;
    process.off('exit', kill);
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const mib = (value: number) => value.toFixed(1);

const imageFlags = imageNodeFlags();
out(
  `\nIdle memory: one bot process (node ${[...imageFlags, MAIN === 'dist/main.js' ? MAIN : 'main.js (built sources)'].join(' ')}, ${botNodeVersion}), ` +
    `${sim.catalog.events.length} events, read ${IDLE_MS} ms after its catalog is crawled; median of ${RUNS} starts.`,
);
const stores = [
  ['SQLite in memory', 'sqlite://:memory:'],
  ['Redis', redis.url],
] as const;
for (const [storeName, storeUrl] of stores) {
  for (const flags of [imageFlags, []]) {
    const runs: Idle[] = [];
    for (let run = 0; run < RUNS; run += 1) runs.push(await idleOnce(`idle-${run}`, flags, storeUrl));
    const rss = runs.map((each) => each.rss);
    out(
      `${storeName.padEnd(16)} ${(flags.join(' ') || 'no flags').padEnd(24)} RSS idle ${mib(median(rss))} MiB ` +
        `(${mib(Math.min(...rss))}-${mib(Math.max(...rss))}; anonymous ${mib(median(runs.map((each) => each.anon)))}, ` +
        `file ${mib(median(runs.map((each) => each.file)))}); V8 heap used ${mib(median(runs.map((each) => each.heapUsed)))} ` +
        `of ${mib(median(runs.map((each) => each.heapTotal)))} MiB`,
    );
  }
}
await redis.stop();
await sim.close();
await slack.close();
