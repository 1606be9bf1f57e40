/**
 * `npx tsx bench/scenarios/fleet-throughput.ts [tasks] [latencyMs]`: the fleet's throughput
 * (docs/fleet.md, docs/performance.md#the-fleet): 12 tasks on a forge repository (the tests' fake
 * GitHub), each two model turns that take `latencyMs` at the fake model, on 1 and then on 3 real
 * `dex worker` processes of the same capacity (`--tasks 4`), each with a DEX_HOME of its own, on
 * the cluster test bed (the Temporal server and dex's store on PostgreSQL). Prints both wall times
 * and their ratio, measured in this one run, and writes them to bench/results/fleet-<time>.json.
 * Brings the bed up if it is down and leaves it as it found it.
 */
import { Client, Connection } from '@temporalio/client';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pollerCount } from '../../client/run/run-handles';
import { fleetQueueOf } from '../../core/fleet/placement-types';
import type { ForgeRepository } from '../../core/fleet/repo-locator';
import type { TaskResult } from '../../core/task/task-types';
import { down, readBed, up } from '../../scripts/cluster/bed';
import { createTestDatabase } from '../../test/cluster/test-database';
import { quietRuntime, taskInput } from '../../test/support/env/dev-server-env';
import { startFakeForge } from '../../test/support/forge/fake-forge';
import { completionTurn, toolTurn } from '../../test/support/model/cassette-builder';
import { startFakeAnthropic } from '../../test/support/model/fake-anthropic-server';

const TOKEN = 'fleet-bench-token-0123456789';
const SLOTS = 4;

async function main(): Promise<void> {
  const tasks = Number(process.argv[2] ?? 12);
  const latencyMs = Number(process.argv[3] ?? 3000);
  const log = (line: string) => process.stderr.write(`${line}\n`);
  quietRuntime();
  const wasUp = readBed() !== undefined;
  const bed = await up(log);
  const db = await createTestDatabase(bed, 'dex_fleet_bench');
  const forge = await startFakeForge({ token: TOKEN, gitAuth: true, protection: null });
  await forge.commit('main', { 'package.json': '{ "name": "bench", "private": true }\n' });
  const host = new URL(forge.remoteUrl).host;
  const repo: ForgeRepository = { kind: 'forge', forge: 'github', apiUrl: forge.apiUrl, tokenEnv: 'GITHUB_TOKEN', host, owner: forge.owner, repo: forge.repo, gitUrl: forge.remoteUrl, caFile: forge.caFile };
  const ids = (run: string) => Array.from({ length: tasks }, (_, i) => `${run}-T${i + 1}`);
  const cassette = ['w1', 'w3'].flatMap((run) => ids(run).flatMap((id) => [toolTurn(id, ['write_file', { path: `src/${id}.js`, content: '1;\n' }]), completionTurn(id, { status: 'complete', summary: id })]));
  const fake = await startFakeAnthropic({ cassette, latencyMs });
  const connection = await Connection.connect({ address: bed.address });
  const client = new Client({ connection });
  const homes: string[] = [];
  let workers: ChildProcess[] = [];

  /** `count` workers, each a machine of its own, then `tasks` tasks at once; the wall time until the last ends. */
  const measure = async (run: string, count: number): Promise<number> => {
    const queue = `dex-fleet-bench-${run}`;
    workers = Array.from({ length: count }, (_, i) => {
      const home = mkdtempSync(join(tmpdir(), `dex-fleet-bench-${run}-${i}-`));
      homes.push(home);
      const env = {
        ...process.env, TEMPORAL_ADDRESS: bed.address, DEX_HOME: home, DEX_TASK_QUEUE: queue, DEX_HOST_QUEUE: `${queue}@h${i}`, DEX_STORE: db.url,
        DEX_WORKER_NAME: `${run}-${i}`, GITHUB_TOKEN: TOKEN, ANTHROPIC_API_KEY: 'bench-key', ANTHROPIC_BASE_URL: fake.url,
      };
      return spawn(process.execPath, [join(__dirname, '..', '..', 'bin', 'dex.js'), 'worker', '--tasks', String(SLOTS)], { env, stdio: 'ignore' });
    });
    while ((await pollerCount(client, 'default', fleetQueueOf(queue), 'activity')) < count) await new Promise((r) => setTimeout(r, 200));
    const started = Date.now();
    const handles = await Promise.all(
      ids(run).map((id) =>
        client.workflow.start('taskWorkflow', {
          workflowId: `task-bench-${id}-${started}`,
          taskQueue: queue,
          args: [taskInput(id, repo.gitUrl, `${queue}@nowhere`, { repo, fleetQueue: fleetQueueOf(queue), verify: ['true'], setup: false })],
        }),
      ),
    );
    const results = (await Promise.all(handles.map((h) => h.result()))) as TaskResult[];
    const wall = Date.now() - started;
    const spread = new Set(results.map((r) => r.worker)).size;
    log(`${run}: ${tasks} tasks on ${count} worker(s) of ${SLOTS} slots: ${(wall / 1000).toFixed(1)} s, on ${spread} worker(s), ${results.filter((r) => r.state === 'completed').length} completed`);
    for (const w of workers) w.kill('SIGTERM');
    await Promise.all(workers.map((w) => new Promise((r) => (w.exitCode === null ? w.once('exit', r) : r(undefined)))));
    return wall;
  };

  try {
    const one = await measure('w1', 1);
    const three = await measure('w3', 3);
    const doc = { startedAt: new Date().toISOString(), tasks, latencyMs, slotsPerWorker: SLOTS, oneWorkerMs: one, threeWorkersMs: three, ratio: Number((one / three).toFixed(2)) };
    mkdirSync(join(__dirname, '..', 'results'), { recursive: true });
    writeFileSync(join(__dirname, '..', 'results', `fleet-${doc.startedAt.replace(/[:.]/g, '-')}.json`), `${JSON.stringify(doc, null, 2)}\n`);
    process.stdout.write(`${tasks} tasks, model latency ${latencyMs} ms a turn: 1 worker ${(one / 1000).toFixed(1)} s, 3 workers ${(three / 1000).toFixed(1)} s, ratio ${doc.ratio}\n`);
  } finally {
    for (const w of workers) w.kill('SIGKILL');
    await connection.close();
    await fake.close();
    await forge.close();
    await db.drop();
    for (const home of homes) rmSync(home, { recursive: true, force: true });
    if (!wasUp) await down(log);
  }
}

main().catch((err: unknown) => {
  console.error(`fleet-throughput: ${(err as Error).stack ?? String(err)}`);
  process.exit(1);
});
