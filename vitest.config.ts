import { readdirSync, readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const ROOT = fileURLToPath(new URL('.', import.meta.url));

/** What makes a suite slow: a redis-server, bot processes or Chromium of its own. */
const SLOW_MARKER = /\b(useRedis|startRedis|startReplica|launchChromium)\(/;

/**
 * The test files that call one of them, found by reading them, so a new Redis or browser suite
 * lands in the slow project without anyone remembering to list it.
 */
export const SLOW_TESTS = readdirSync(join(ROOT, 'test'), { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test.ts'))
  .map((file) => `test/${file.split(sep).join('/')}`)
  .filter((file) => SLOW_MARKER.test(readFileSync(join(ROOT, file), 'utf8')))
  .sort();

export const config = defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Integration tests start their own servers on port 0; two workers match the two cores.
    pool: 'forks',
    maxWorkers: 2,
    // `vitest run` runs both; `--project fast` (npm run test:fast) leaves out the slow one.
    projects: [
      { extends: true, test: { name: 'fast', include: ['test/**/*.test.ts'], exclude: SLOW_TESTS } },
      { extends: true, test: { name: 'slow', include: SLOW_TESTS } },
    ],
  },
});

// Vitest reads the default export of its config file; this is the one default export we keep.
export default config;
