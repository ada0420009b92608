import { defineConfig } from 'vitest/config';

/**
 * Suites that start a redis-server, bot processes or Chromium: most of the run's time. A new file
 * that calls `useRedis`/`startRedis`, `startReplica` or `launchChromium` belongs here.
 */
export const SLOW_TESTS = [
  'test/deploy/**/*.test.ts',
  'test/replicas/**/*.test.ts',
  'test/integration/health-metrics.test.ts',
  'test/integration/shared-report-follower.test.ts',
  'test/sandbox/sandbox-browser.test.ts',
  'test/store/store-contract.test.ts',
  'test/ticketing/report-limit-contract.test.ts',
  'test/ticketing/report-slots.test.ts',
  'test/ticketing/shared-budget.test.ts',
  'test/ticketing/shared-report-queue.test.ts',
];

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
