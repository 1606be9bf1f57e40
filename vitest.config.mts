import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Each file starts its own real Temporal server; two at a time fits two cores.
    fileParallelism: true,
    maxWorkers: 2,
    testTimeout: 120_000,
    hookTimeout: 180_000,
    globalSetup: ['test/support/env/global-setup.ts'],
  },
});
