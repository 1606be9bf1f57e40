/**
 * `npx tsx bench/scenarios/scale-cluster.ts [topics]`: the scale section's layer on the cluster test bed
 * (scripts/cluster.sh: the real Temporal server on PostgreSQL), with the CPU per topic split into
 * the server's, PostgreSQL's and the worker's (docs/production.md#a-night-over-100000-topics).
 * Brings the bed up if it is down and leaves it as it found it. The results go to
 * bench/results/scale-cluster-<time>.json and, as one JSON document, to stdout.
 */
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { down, readBed, up } from '../../scripts/cluster/bed';
import { quietRuntime } from '../../test/support/env/dev-server-env';
import type { BenchServer } from '../dex-env';
import { scaleRun } from './scale-run';
import { settled, treeCpuSeconds } from '../stats';

async function main(): Promise<void> {
  const topics = Number(process.argv[2] ?? 4000);
  const log = (line: string) => process.stderr.write(`${line}\n`);
  quietRuntime();
  const wasUp = readBed() !== undefined;
  const bed = await up(log);
  const env = await TestWorkflowEnvironment.createFromExistingServer({ address: bed.address, namespace: 'default' });
  const server: BenchServer = { env, pid: bed.serverPid, stop: () => env.teardown() };
  const postmaster = Number(readFileSync(join(bed.pg.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  const databaseCpu = () => treeCpuSeconds(postmaster);
  try {
    log(`cluster quiet after ${((await settled(bed.serverPid)) / 1000).toFixed(1)} s`);
    const started = new Date();
    const tag = started.getTime();
    const runs = [
      await scaleRun(server, { targets: 'workflows', topics: Math.round(topics / 4), concurrency: 64, latencyMs: 1000, n: tag, databaseCpu }, log),
      await scaleRun(server, { targets: 'activity', topics, concurrency: 64, latencyMs: 1000, n: tag + 1, databaseCpu }, log),
    ];
    const doc = JSON.stringify({ startedAt: started.toISOString(), server: 'temporal server v1.29.1 on PostgreSQL (scripts/cluster.sh)', runs }, null, 2) + '\n';
    mkdirSync(join(__dirname, '..', 'results'), { recursive: true });
    writeFileSync(join(__dirname, '..', 'results', `scale-cluster-${started.toISOString().replace(/[:.]/g, '-')}.json`), doc);
    process.stdout.write(doc);
  } finally {
    await server.stop();
    if (!wasUp) await down(log);
  }
}

main().catch((err: unknown) => {
  console.error(`scale-cluster: ${(err as Error).message}`);
  process.exit(1);
});
