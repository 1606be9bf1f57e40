import { defineConfig } from 'vitest/config';

// The cluster suite (`npm run test:cluster`): dex on the cluster test bed, PostgreSQL and the
// real Temporal server (docs/production.md#the-cluster-test-bed). Its files end in .cluster.ts,
// so `npm test` (test/**/*.test.ts) never picks them up. One file at a time: they share one bed,
// and restart its server and database.
export default defineConfig({
  test: {
    include: ['test/cluster/**/*.cluster.ts'],
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 600_000,
    globalSetup: ['test/cluster/global-setup.ts'],
  },
});
