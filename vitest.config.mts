import { defineConfig } from 'vitest/config';
import SlowFirstSequencer from './test/support/env/slow-first-sequencer.mts';

/** Files that run real servers, tools or the CLI end to end: a process each, as they always had. */
const END_TO_END = ['test/integration/**/*.test.ts', 'test/time-skipping/**/*.test.ts'];

export default defineConfig({
  test: {
    // Each end-to-end file starts its own real Temporal server. On two cores, two files at a time left the CPU idle while
    // they waited (for servers, timers, child processes): 16 files took 98.9–101.7 s with two, 88.9–92.3 s with three (issue 42).
    fileParallelism: true,
    maxWorkers: 3,
    testTimeout: 120_000,
    hookTimeout: 180_000,
    globalSetup: ['test/support/env/global-setup.ts'],
    // The slowest files first, in a fresh clone too (test/support/env/slow-first-sequencer.mts).
    sequence: { sequencer: SlowFirstSequencer },
    projects: [
      { extends: true, test: { name: 'end-to-end', include: END_TO_END } },
      // The other 109 files share their processes: a process and its imports for each cost 176 s of CPU
      // against 145 s shared (all passed either way; docs/fresh-machine.md#measured).
      { extends: true, test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: END_TO_END, isolate: false } },
    ],
  },
});
