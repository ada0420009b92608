/**
 * Counts the source files the two flows of docs/architecture.md enter: a `/events report <name>`
 * in a channel, and a watch check. `npm run trace` (it re-runs itself under NODE_V8_COVERAGE).
 *
 * The real bot (Bolt's HTTP receiver, the client, SQLite) runs against the simulator and a fake
 * Slack. Each flow runs once to warm every lazy part up, then again between two of V8's
 * `takeCoverage()` calls, which reset its counters: a file counts as entered when a function of it
 * ran in that window. A file of types only is never entered, so it is not counted.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { takeCoverage } from 'node:v8';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

if (!process.env.NODE_V8_COVERAGE) {
  const dir = mkdtempSync(join(tmpdir(), 'eventops-trace-'));
  const run = spawnSync(process.execPath, process.execArgv.concat(process.argv.slice(1)), {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, NODE_V8_COVERAGE: dir, EVENTOPS_TRACE_DIR: dir },
  });
  rmSync(dir, { recursive: true, force: true });
  process.exit(run.status ?? 1);
}

const { startBot, SIGNING_SECRET } = await import('../test/helpers/bot.js');
const { fastWatches } = await import('../test/helpers/fast-watches.js');
const { commandBody, postSigned } = await import('../test/helpers/slack-requests.js');
const dir = process.env.EVENTOPS_TRACE_DIR as string;

interface FunctionCoverage {
  ranges: { count: number }[];
}
interface ScriptCoverage {
  url: string;
  functions: FunctionCoverage[];
}

/** The files under src/ with a function that ran since the last reset, in the newest coverage file. */
function enteredSince(before: Set<string>): string[] {
  const newest = readdirSync(dir)
    .filter((name) => name.endsWith('.json') && !before.has(name))
    .map((name) => join(dir, name));
  const entered = new Set<string>();
  for (const file of newest) {
    const { result } = JSON.parse(readFileSync(file, 'utf8')) as { result: ScriptCoverage[] };
    for (const script of result) {
      if (!script.url.startsWith('file://')) continue;
      const path = relative(ROOT, fileURLToPath(script.url));
      // The simulator plays the service and the sandbox's argument reader serves the fake Slack.
      if (!path.startsWith('src/') || /^src\/(simulator|sandbox)\//.test(path)) continue;
      if (script.functions.some((fn) => (fn.ranges[0]?.count ?? 0) > 0)) entered.add(path.slice('src/'.length));
    }
  }
  return [...entered].sort();
}

/**
 * The files the two flows of docs/architecture.md name, in order and each once: the first path of
 * each numbered step of its sections "### A." and "### B.".
 */
function documentedFlows(): Map<string, string[]> {
  const flows = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8').split('\n')) {
    const heading = /^### ([AB]\.)/.exec(line);
    if (heading) {
      current = [];
      flows.set(heading[1] as string, current);
    } else if (line.startsWith('#')) current = undefined;
    const step = /^\d+\. `([^`]+)`/.exec(line);
    if (current && step && !current.includes(step[1] as string)) current.push(step[1] as string);
  }
  return flows;
}

/** Runs `flow` once between two resets of V8's counters; the src files it entered. */
async function trace(flow: () => Promise<void>): Promise<string[]> {
  takeCoverage();
  const before = new Set(readdirSync(dir));
  await flow();
  takeCoverage();
  return enteredSince(before);
}

const fast = fastWatches();
const r = await startBot({ ...fast.options, env: { ...fast.options.env, LOG_LEVEL: 'error' } });
try {
  const [first, second] = r.sim.catalog.events.filter(
    (event) =>
      event.status === 'published' && event.startsAtMs > fast.clock.now() + 86_400_000 && /^[\w ]+$/.test(event.name),
  );
  if (!first || !second) throw new Error('the simulator has too few published events');
  await r.bot.catalog.snapshot();

  const reportOf = async (name: string) => {
    const before = r.slack.calls.length;
    const body = commandBody({
      text: `report ${name}`,
      user_id: 'U0EDITOR',
      channel_id: 'C0001',
      response_url: r.slack.responseUrl(),
    });
    const answer = await postSigned(r.url, SIGNING_SECRET, body);
    if (answer.status !== 200) throw new Error(`the command got ${answer.status}`);
    await r.slack.waitFor(() =>
      r.slack.calls
        .slice(before)
        .find((call) => call.method === 'files.completeUploadExternal' || call.method === 'chat.stopStream'),
    );
  };
  const check = async () => {
    await fast.check(r);
  };

  await reportOf(first.id);
  const watchAnswer = r.slack.responseUrl();
  await postSigned(
    r.url,
    SIGNING_SECRET,
    commandBody({
      text: `watch ${second.id}: sold out`,
      user_id: 'U0EDITOR',
      channel_id: 'C0001',
      response_url: watchAnswer,
    }),
  );
  const path = new URL(watchAnswer).pathname;
  const said = await r.slack.waitFor(() =>
    r.slack.responses.find((call) => call.method === path && !String(call.args.text).startsWith(':hourglass')),
  );
  if (!/watch/i.test(JSON.stringify(said.args))) throw new Error(`the watch was not set: ${JSON.stringify(said.args)}`);
  await check();

  const report = await trace(() => reportOf(first.name));
  // Sold out since the last check: the traced check crosses the watch's condition and alerts.
  r.sim.setMotion(second.id, 'still');
  r.sim.setFigures(second.id, { ticketsSold: second.capacity });
  const watchCheck = await trace(check);
  const flows = documentedFlows();
  let undocumented = 0;
  for (const [title, files] of [
    ['A.', report],
    ['B.', watchCheck],
  ] as const) {
    const steps = flows.get(title) ?? [];
    const folders = new Set(files.map((file) => file.split('/')[0]));
    process.stdout.write(
      `${title} ${steps.length} files named in docs/architecture.md; ${files.length} files entered in all, in ${folders.size} top-level folders\n`,
    );
    for (const step of steps) {
      const seen = files.includes(step);
      if (!seen) undocumented += 1;
      process.stdout.write(`  ${seen ? 'step' : 'NOT ENTERED'}  ${step}\n`);
    }
    for (const file of files.filter((file) => !steps.includes(file))) process.stdout.write(`  on the way  ${file}\n`);
  }
  process.exitCode = undocumented === 0 ? 0 : 1;
} finally {
  await r.close();
}
