/**
 * Slash-command acks under load (issue 16 item 13). One bot process (`node dist/main.js`, as the
 * image runs it) on SQLite in memory, against the simulator (the spec's limits: 180 a minute,
 * reports 3 a minute; 5 ms latency) and a fake Slack Web API, both in this process. 400 signed
 * `/events` commands from 50 people (list, list week, show, find, report, help), each run on a
 * freshly started bot: 20 in flight at once (each sender sends its next command when the last one
 * is acknowledged), then 4 in flight, then at a steady 100 a second whatever the acks do (as
 * people type them). Printed: the time to the HTTP 200 (the ack: what Slack waits 3 s for), the
 * time to the answer (the response_url post; reports answer through chat.postMessage and are left
 * out), how long the run took to its last answer, the bot's CPU time a command and how long its
 * event loop waited for a core (a machine shared with other work), and its resident memory idle
 * (its catalog crawled, nothing asked yet) and after the run.
 *
 * With senders that wait only for acks, acks faster than the bot's work make its work queue up:
 * the answers then wait their turn. The steady-rate run shows the answers when the bot keeps up.
 *
 * Options (environment):
 * - `BENCH_NODE_FLAGS="--max-semi-space-size=16"` passes V8/Node flags to the bot after the Dockerfile CMD's
 *   own (`--max-semi-space-size=1 --v8-pool-size=1 --liftoff-only`), which it always gets (memory experiments; a later flag wins).
 * - `BENCH_BOT_NODE=<path>` runs the bot on another node (the image's Node 24: see bench/bot-env.ts).
 * - `BENCH_RUNS=n` repeats the measurement (the figures are noisy on a shared 2-core machine).
 * - `BENCH_CLIENT=fetch` sends through `fetch` (test/helpers' postSigned) instead of undici's
 *   `request`: fetch costs this process (which also plays Slack and the service) a few ms a call,
 *   which shows up in the acks.
 * - `BENCH_SOURCE=1` runs `src/main.ts` through tsx instead of the build; `BENCH_NO_BUILD=1` runs
 *   the `dist/` already built; `BENCH_BUILT_SOURCES=1` runs the build of the sources the processes
 *   tests start (test/helpers/built-sources.ts: esbuild, kept by the sources' content, safe to
 *   share with suites building at the same moment) instead of `npm run build`, and leaves `dist/` alone.
 * - `BENCH_CPU_PROF=<dir>` writes a CPU profile of each bot process there (`--cpu-prof`).
 * - `BENCH_SHORT=1` runs every load with 60 commands (not 400) and measures idle memory after 0.5 s
 *   (not 2 s), to prove the bench still runs (test/bench/benches-run.processes.test.ts), not for
 *   its figures.
 */

import { execSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { startSimulator } from '../src/simulator/server.js';
import { startFakeSlack } from '../test/helpers/fake-slack.js';
import { commandBody, postSigned, slackSignature } from '../test/helpers/slack-requests.js';
import { benchBotEnv, botNode, botNodeVersion } from './bot-env.js';
import { imageNodeFlags } from './image-node-flags.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SECRET = 'bench-ack-signing-secret';
/** `BENCH_SHORT=1`: a quicker run (see above). */
const SHORT = process.env.BENCH_SHORT === '1';
const COMMANDS = SHORT ? 60 : 400;
/** How long a bot idles, its catalog crawled, before its resident memory is read. */
const IDLE_MS = SHORT ? 500 : 2_000;
const PEOPLE = 50;
/** Senders waiting for their acks (`inFlight`), or commands sent at a steady rate whatever the acks do. */
type Load = { inFlight: number } | { perSecond: number };
const LOADS: Load[] = [{ inFlight: 20 }, { inFlight: 4 }, { perSecond: 100 }];
const loadName = (load: Load) =>
  'inFlight' in load ? `${String(load.inFlight).padStart(3)} in flight` : `${load.perSecond} a second`;
const RUNS = Number(process.env.BENCH_RUNS ?? 1);
const build = process.env.BENCH_SOURCE ? 'source' : process.env.BENCH_BUILT_SOURCES ? 'built-sources' : 'dist';
const client = process.env.BENCH_CLIENT === 'fetch' ? 'fetch' : 'undici';
const cpuProfileDir = process.env.BENCH_CPU_PROF;
const out = (line: string) => process.stdout.write(`${line}\n`);

if (build === 'dist' && !process.env.BENCH_NO_BUILD) execSync('npm run build', { cwd: ROOT, stdio: 'ignore' });
/** What the bot process runs, after node's own flags. */
const botArgs =
  build === 'dist'
    ? ['dist/main.js']
    : build === 'source'
      ? ['--import', 'tsx', 'src/main.ts']
      : [await (await import('../test/helpers/built-sources.js')).builtScript('src/main.ts')];
const botCommand = {
  dist: 'node dist/main.js',
  source: 'tsx src/main.ts',
  'built-sources': 'node main.js built by esbuild',
}[build];

const slack = await startFakeSlack();
const sim = await startSimulator({ latencyMs: 5 });
const events = sim.catalog.events;
const COMMAND_KINDS = ['list', 'show', 'find', 'report', 'help'] as const;
/** The i-th command's text: list (every other one `list week`), show, find, report, help in turn. */
function text(i: number): string {
  const event = events[(i * 7) % events.length];
  const kind = COMMAND_KINDS[i % COMMAND_KINDS.length];
  if (kind === 'list') return i % 10 < 5 ? 'list' : 'list week';
  if (kind === 'find') return `find ${event?.name.split(/\s+/)[0] ?? 'gala'}`;
  return kind === 'help' ? 'help' : `${kind} ${event?.id}`;
}

interface Bot {
  url: string;
  /** CPU time the process has used so far (user + system), from /proc. */
  cpuMs(): number;
  /**
   * How long its main thread (the event loop) has waited for a core while it had work, in ms, from
   * /proc/<pid>/schedstat: on a machine shared with other work, the part of an ack's wait that
   * no code in the bot can shorten.
   */
  queuedMs(): number;
  waitForLog(msg: string): Promise<void>;
  stop(): Promise<void>;
}

/** One bot process with `env` and nothing of this process's (node's own flags too, for `--cpu-prof`). */
async function startBot(name: string, env: Record<string, string>): Promise<Bot> {
  const nodeArgs = [
    // The image's flags first (as it runs the bot), then the experiment's, which override them.
    ...imageNodeFlags(),
    ...(process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? []),
    ...(cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfileDir}`] : []),
  ];
  const child = spawn(botNode, [...nodeArgs, ...botArgs], {
    cwd: ROOT,
    env: benchBotEnv(name, SECRET, env),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // Whatever happens to the benchmark, the bot goes with it.
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  const seen: { msg?: string; port?: number }[] = [];
  const waiting = new Set<() => void>();
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', (line) => {
    try {
      seen.push(JSON.parse(line) as { msg?: string; port?: number });
    } catch {
      seen.push({ msg: line });
    }
    for (const check of waiting) check();
  });
  const exited = once(child, 'exit');
  const waitFor = (msg: string) =>
    new Promise<{ port?: number }>((resolve, reject) => {
      const check = () => {
        const found = seen.find((line) => line.msg === msg);
        if (!found) return;
        waiting.delete(check);
        resolve(found);
      };
      waiting.add(check);
      void exited.then(() => reject(new Error(`${name} exited: ${seen.map((line) => line.msg).join('; ')}`)));
      check();
    });
  const listening = await waitFor('eventops is listening for Slack on POST /slack/events');
  return {
    url: `http://127.0.0.1:${listening.port}`,
    cpuMs: () => {
      // utime and stime, fields 14 and 15 of /proc/<pid>/stat (counted after the name), in 10 ms ticks.
      const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      return (Number(fields[11]) + Number(fields[12])) * 10;
    },
    queuedMs: () => Number(readFileSync(`/proc/${child.pid}/schedstat`, 'utf8').split(' ')[1]) / 1e6,
    waitForLog: async (msg) => {
      await waitFor(msg);
    },
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
      process.off('exit', kill);
    },
  };
}

async function residentMiB(bot: Bot): Promise<number> {
  const metrics = await (await fetch(`${bot.url}/metrics`)).text();
  const line = metrics.split('\n').find((each) => each.startsWith('process_resident_memory_bytes '));
  return Number(line?.split(' ')[1]) / 1024 / 1024;
}

const agent = new Agent({ connections: 64 });

/** Posts one signed slash command; the milliseconds until its HTTP status arrived. */
async function postCommand(url: string, body: string): Promise<number> {
  if (client === 'fetch') {
    const reply = await postSigned(url, SECRET, body);
    if (reply.status !== 200) throw new Error(`a command was answered ${reply.status}`);
    return reply.ackMs;
  }
  const timestamp = Math.floor(Date.now() / 1000);
  const started = performance.now();
  const response = await request(url, {
    method: 'POST',
    dispatcher: agent,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': String(timestamp),
      'x-slack-signature': slackSignature(SECRET, timestamp, body),
    },
    body,
  });
  const ackMs = performance.now() - started;
  await response.body.dump();
  if (response.statusCode !== 200) throw new Error(`a command was answered ${response.statusCode}`);
  return ackMs;
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;

interface Phase {
  /** From the first command sent to the last answer. */
  wallMs: number;
  idleMiB: number;
  afterMiB: number;
  cpuMsPerCommand: number;
  /** From the first command sent to the last answer: the bot's time waiting for a core. */
  queuedMs: number;
  acks: number[];
  answers: number[];
}

async function phase(run: number, load: Load): Promise<Phase> {
  const name = 'inFlight' in load ? `${load.inFlight}-in-flight` : `${load.perSecond}-a-second`;
  const bot = await startBot(`ack-${run}-${name}`, {
    STORE_URL: 'sqlite://:memory:',
    TICKETING_API_URL: sim.url,
    TICKETING_API_KEY: sim.apiKeys[0] as string,
    SLACK_API_URL: slack.apiUrl,
  });
  try {
    await bot.waitForLog('Event catalog refreshed');
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const idleMiB = await residentMiB(bot);
    const tag = `r${run}-${name}`;
    const acks: number[] = [];
    const sentAt = new Map<string, number>();
    const send = async (i: number) => {
      const responseUrl = slack.responseUrl(`${tag}-${i}`);
      if (!text(i).startsWith('report')) sentAt.set(new URL(responseUrl).pathname, Date.now());
      const body = commandBody({
        text: text(i),
        user_id: `U0BENCH${String(i % PEOPLE).padStart(2, '0')}`,
        channel_id: `C0BENCH${i % 4}`,
        response_url: responseUrl,
      });
      acks.push(await postCommand(`${bot.url}/slack/events`, body));
    };
    const cpuBefore = bot.cpuMs();
    const queuedBefore = bot.queuedMs();
    const startedAt = Date.now();
    if ('inFlight' in load) {
      let next = 0;
      await Promise.all(
        Array.from({ length: load.inFlight }, async () => {
          while (next < COMMANDS) await send(next++);
        }),
      );
    } else {
      const sending: Promise<void>[] = [];
      for (let i = 0; i < COMMANDS; i += 1) {
        const due = startedAt + (i * 1_000) / load.perSecond;
        if (due > Date.now()) await new Promise((resolve) => setTimeout(resolve, due - Date.now()));
        sending.push(send(i));
      }
      await Promise.all(sending);
    }
    // Every answer in: then the bot's CPU time covers all the work the commands caused.
    const answeredAt = await slack.waitFor(() => {
      const first = new Map<string, number>();
      for (const response of slack.responses) {
        if (sentAt.has(response.method) && !first.has(response.method)) first.set(response.method, response.at);
      }
      return first.size === sentAt.size ? first : undefined;
    }, 120_000);
    const cpuMsPerCommand = (bot.cpuMs() - cpuBefore) / COMMANDS;
    const queuedMs = bot.queuedMs() - queuedBefore;
    const answers = [...answeredAt].map(([path, at]) => at - (sentAt.get(path) ?? at));
    const wallMs = Math.max(...answeredAt.values()) - startedAt;
    return { wallMs, idleMiB, afterMiB: await residentMiB(bot), cpuMsPerCommand, queuedMs, acks, answers };
  } finally {
    await bot.stop();
  }
}

const ms = (value: number) => value.toFixed(1);
const figures = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return `p50 ${ms(quantile(sorted, 0.5))}, p99 ${ms(quantile(sorted, 0.99))}, max ${ms(quantile(sorted, 1))} ms`;
};
out(
  `\nSlash-command acks: one bot process (${botCommand}, ` +
    `SQLite in memory, ${botNodeVersion}), ${COMMANDS} commands from ${PEOPLE} people ` +
    `(list, show, find, report, help), ${events.length} events, sent through ${client}.`,
);
for (let run = 1; run <= RUNS; run += 1) {
  for (const load of LOADS) {
    const result = await phase(run, load);
    out(
      `run ${run}, ${loadName(load)}: ack ${figures(result.acks)}; answer ${figures(result.answers)}; ` +
        `last answer after ${result.wallMs} ms; bot CPU ${ms(result.cpuMsPerCommand)} ms a command, ` +
        `${Math.round(result.queuedMs)} ms waiting for a core; ` +
        `RSS idle ${result.idleMiB.toFixed(1)} MiB, after ${result.afterMiB.toFixed(1)} MiB`,
    );
  }
}
await agent.close();
await sim.close();
await slack.close();
