import { defineConfig } from 'vitest/config';
import SlowFirstSequencer from './test/support/env/slow-first-sequencer';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Each file starts its own real Temporal server. On two cores, two files at a time left the CPU idle while
    // they waited (for servers, timers, child processes): 16 files took 98.9–101.7 s with two, 88.9–92.3 s with three (issue 42).
    fileParallelism: true,
    maxWorkers: 3,
    testTimeout: 120_000,
    hookTimeout: 180_000,
    globalSetup: ['test/support/env/global-setup.ts'],
    // The slowest files first, in a fresh clone too (test/support/env/slow-first-sequencer.ts).
    sequence: { sequencer: SlowFirstSequencer },
  },
});
