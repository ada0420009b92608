import { readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const ROOT = fileURLToPath(new URL('.', import.meta.url));

/**
 * A suite's name says what it needs, so a newcomer sees which are slow and why:
 * `*.redis.test.ts` starts a redis-server, `*.processes.test.ts` starts bot processes (the replica
 * suites, on Redis too), `*.browser.test.ts` drives Chromium. test/test-names.test.ts checks that
 * every suite calling one of them is named so.
 */
export const SLOW_SUFFIXES = ['.redis.test.ts', '.processes.test.ts', '.browser.test.ts'] as const;

const TEST_FILES = readdirSync(join(ROOT, 'test'), { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test.ts'))
  .map((file) => `test/${file.split(sep).join('/')}`)
  .sort();

export const SLOW_TESTS = TEST_FILES.filter((file) => SLOW_SUFFIXES.some((suffix) => file.endsWith(suffix)));

/** The browser suites among them: run last, after the others (see `projects`). */
export const BROWSER_TESTS = SLOW_TESTS.filter((file) => file.endsWith('.browser.test.ts'));

/**
 * The suites of several bot processes: the longest files, spent mostly waiting on their leases and
 * windows. They start first, so the short files fill the workers beside them instead of the run
 * ending on one of them alone.
 */
export const PROCESS_TESTS = SLOW_TESTS.filter((file) => file.endsWith('.processes.test.ts'));

/**
 * Workers: three a core. Most of a slow file's time is waiting (windows, leases, bot processes
 * starting), so the short files run beside the process suites instead of after them (on two cores,
 * one warm run: 55 s with six, 66 s with four, 58 s with eight).
 */
const WORKERS = Math.max(2, 3 * availableParallelism());

class ReplicasFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const isReplicas = (file: TestSpecification) => PROCESS_TESTS.some((path) => file.moduleId.endsWith(`/${path}`));
    return [...sorted.filter(isReplicas), ...sorted.filter((file) => !isReplicas(file))];
  }
}

export const config = defineConfig({
  test: {
    testTimeout: 30_000,
    // expect.poll looks every 10 ms (not 50): each look later than needed is time the suite waits.
    // Most looks read memory; the dearest (a /metrics scrape, a page's locator) take a few ms, and
    // a look starts only once the one before has answered, so none piles up.
    // It waits up to 10 s (not 1 s): a poll waits for something to happen, it does not time it,
    // and on a busy machine a first report or check (a channel's lookups first) passes 1 s.
    expect: { poll: { interval: 10, timeout: 10_000 } },
    hookTimeout: 30_000,
    // Integration tests start their own servers on port 0.
    pool: 'forks',
    maxWorkers: WORKERS,
    sequence: { sequencer: ReplicasFirst },
    // `vitest run` runs them all; `--project fast` (npm run test:fast) leaves out the slow ones.
    // The browser suites run after the others, side by side (each its own sandbox and Chromium): on
    // two cores, bot processes starting beside them (the replica suites) starved a page and its bot
    // past Slack's 3 s answers in clean-clone runs.
    projects: [
      // The fast and the slow files share a worker's modules (no fresh import of Bolt and the rest
      // per file: a third of the fast project's time went there, 15 CPU-s of the slow one's); each
      // builds what it tests and closes it, and work that outlives its file shows up as an error in
      // the next one.
      {
        extends: true,
        test: { name: 'fast', include: ['test/**/*.test.ts'], exclude: SLOW_TESTS, isolate: false },
      },
      { extends: true, test: { name: 'slow', include: SLOW_TESTS, exclude: BROWSER_TESTS, isolate: false } },
      { extends: true, test: { name: 'browser', include: BROWSER_TESTS, sequence: { groupOrder: 1 } } },
    ],
  },
});

// Vitest reads the default export of its config file; this is the one default export we keep.
export default config;
