import { defineConfig } from 'vitest/config';

export const config = defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Integration tests start their own servers on port 0; two workers match the two cores.
    pool: 'forks',
    maxWorkers: 2,
  },
});

// Vitest reads the default export of its config file; this is the one default export we keep.
export default config;
