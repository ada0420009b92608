/**
 * Issue 38: every scenario of `npm run bench` runs to its end. Each bench the `bench` script of
 * package.json runs is started here, from the checkout's root, in its short mode (`BENCH_SHORT=1`:
 * the same scenarios, smaller), and has to exit 0; a bench that no longer runs fails its test with
 * the end of what it wrote to stderr. Its figures are not checked (they are for people, and a busy
 * machine moves them). The benches start their own processes (bot replicas, redis-servers, workers)
 * and listen on ports the system picks, so this runs beside the other suites.
 *
 * `BENCH_BUILT_SOURCES=1`: the benches that run the built bot run the build the processes tests use
 * (test/helpers/built-sources.ts, kept by the sources' content, safe to share) instead of running
 * `npm run build`, which would write `dist/` under whoever else is using it.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** A bench's own limit; the test's is a little longer, so a bench that hangs is stopped here first. */
const BENCH_TIMEOUT_MS = 170_000;

const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
};
const commands = (scripts.bench ?? '').split('&&').map((command) => command.trim());
const benches = commands.flatMap((command) => /^tsx (bench\/[\w.-]+\.ts)$/.exec(command)?.[1] ?? []);

/**
 * An `--import` for each bench: it goes with this process (a bench's parent changes when the test
 * process is gone), and SIGTERM ends it through `process.exit`, so its own `exit` handlers stop
 * what it started (bots, redis-servers). A data: URL, so it needs no file and no TypeScript.
 */
const ENDS_WITH_TEST = `data:text/javascript,${encodeURIComponent(
  'const parent=process.ppid;' +
    'setInterval(()=>{if(process.ppid!==parent)process.exit(1)},500).unref();' +
    "process.once('SIGTERM',()=>process.exit(143));",
)}`;

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** Runs `tsx <file>` as the bench script does, with BENCH_SHORT=1 and little else of this environment. */
function runBench(file: string): Promise<Ended> {
  const passed = ['PATH', 'HOME', 'TMPDIR', 'REDIS_SERVER_PATH'].flatMap((name) => {
    const value = process.env[name];
    return value === undefined ? [] : [[name, value] as const];
  });
  // `node --import tsx`, what the tsx command runs, without the tsx process between: the bench is
  // this process's own child, so the guard above sees this process go.
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', ENDS_WITH_TEST, file], {
    cwd: ROOT,
    env: { ...Object.fromEntries(passed), BENCH_SHORT: '1', BENCH_BUILT_SOURCES: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-20_000);
  });
  let timedOut = false;
  let kill: NodeJS.Timeout | undefined;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGTERM');
    kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
  }, BENCH_TIMEOUT_MS);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(kill);
      resolve({ code, signal, stdout, stderr, timedOut });
    });
  });
}

const failure = (file: string, ended: Ended) =>
  `${file} ${ended.timedOut ? `did not end in ${BENCH_TIMEOUT_MS / 1000} s and was stopped` : `exited ${ended.code ?? ended.signal}`}; ` +
  `the end of its stderr:\n${ended.stderr.slice(-4_000) || '(nothing)'}\nthe end of its stdout:\n${ended.stdout.slice(-1_000)}`;

describe('npm run bench, short', () => {
  it('runs only `tsx bench/<name>.ts` commands, each started below', () => {
    expect(benches.length).toBeGreaterThan(0);
    expect(commands).toEqual(benches.map((file) => `tsx ${file}`));
  });

  it.each(benches)('%s runs to its end', { timeout: BENCH_TIMEOUT_MS + 10_000 }, async (file) => {
    const ended = await runBench(file);
    expect(ended.code, failure(file, ended)).toBe(0);
    if (file === 'bench/watches.ts') expect(ended.stdout, failure(file, ended)).toMatch(/^Bounds: /m);
    // Issue 45: the held-out family's targets, printed apart from the rest's, each with its verdict.
    if (file === 'bench/forecast.ts')
      for (const group of [/held out \(beta\)/, /the rest \(/])
        for (const target of [/error/, /no shape and start/, /the 80% range/])
          expect(ended.stdout, failure(file, ended)).toMatch(
            new RegExp(`^- (pass|MISS): ${group.source}.*: ${target.source}`, 'm'),
          );
  });
});
