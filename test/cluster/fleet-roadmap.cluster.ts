/**
 * A roadmap on a forge repository on the cluster test bed (docs/fleet.md#a-roadmap-on-a-forge-repository):
 * `dex run ROADMAP.md --repo URL --detach`, as a person types it, against the fake GitHub (a real bare
 * repository over HTTPS, real checks run by its CI), with three real `dex worker` processes of one task
 * slot each, their own DEX_HOMEs, the Temporal server and dex's store on PostgreSQL. The tasks spread
 * over the workers and land through pull requests; a worker SIGKILLed mid-phase, its home deleted, costs
 * the task it held at most the call in flight, and that task lands too.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fleetQueueOf } from '../../core/fleet/placement-types';
import type { RoadmapResult } from '../../core/roadmap/roadmap-types';
import type { RunStatus } from '../../core/run/run-types';
import type { TaskResult } from '../../core/task/task-types';
import { completionTurn, toolTurn } from '../support/model/cassette-builder';
import { runDex } from '../support/env/dex-cli';
import { allText } from '../support/env/tree-text';
import { startFakeForge, type FakeForge } from '../support/forge/fake-forge';
import { webhook } from '../support/forge/ci-webhook';
import { crashWorker, killDexWorkers, requestsPerCall, spawnDexWorker } from '../support/env/worker-process';
import { useClusterEnv, waitForPollers } from './cluster-env';
import { createTestDatabase, type TestDatabase } from './test-database';

const QUEUE = 'dex-fleet-roadmap-test';
const TOKEN = 'fleet-roadmap-token-0123456789';
const TASKS = ['R1', 'R2', 'R3', 'R4', 'R5', 'R6'];
const write = (task: string, path: string, content: string) => toolTurn(task, ['write_file', { path, content }]);
const done = (task: string) => completionTurn(task, { status: 'complete', summary: `${task} done` });

const CASSETTE = [
  // R1 writes two files, one turn each: its worker is lost while R1 asks for its second turn.
  write('R1', 'src/R1a.js', 'exports.a = 1;\n'),
  write('R1', 'src/R1b.js', 'exports.b = 1;\n'),
  done('R1'),
  ...TASKS.slice(1).flatMap((t) => [write(t, `src/${t}.js`, `exports.${t} = 1;\n`), done(t)]),
];
const ROADMAP = [
  '# Roadmap',
  '',
  '- [ ] R1: Add R1',
  '- [ ] R2: Add R2',
  '- [ ] R3: Add R3',
  '- [ ] R4: Add R4 (depends: R2)',
  '- [ ] R5: Add R5 (depends: R3)',
  '- [ ] R6: Add R6 (depends: R4)',
  '',
].join('\n');

const cluster = useClusterEnv({ cassette: CASSETTE });
let db: TestDatabase;
let forge: FakeForge;
const homes: string[] = [];
let workerLogs = '';

beforeAll(async () => {
  db = await createTestDatabase(cluster.bed, 'dex_fleet_roadmap');
  forge = await startFakeForge({ token: TOKEN, gitAuth: true, protection: null, checks: [{ name: 'test', command: 'node --test' }] });
  await forge.commit('main', {
    'package.json': '{ "name": "fleet-roadmap", "private": true }\n',
    'test/ok.test.js': "require('node:test')('ok', () => {});\n",
    'dex.config.yaml': 'verify: ["node --test"]\nsetup: false\nmaxParallel: 3\n',
    'ROADMAP.md': ROADMAP,
  });
});

afterAll(async () => {
  killDexWorkers();
  await db?.drop();
  await forge?.close();
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

/** A worker "machine" of one task slot: a `dex worker` with its own DEX_HOME, mirrors and caches, on the shared store. */
function startMachine(name: string) {
  const home = mkdtempSync(join(tmpdir(), `dex-fleet-roadmap-${name}-`));
  homes.push(home);
  const process = spawnDexWorker({
    address: cluster.bed.address, dexHome: home, taskQueue: QUEUE, hostQueue: `${QUEUE}@${name}-host`, anthropicUrl: cluster.fake.url, args: ['--tasks', '1'],
    env: { DEX_STORE: db.url, DEX_WORKER_NAME: name, GITHUB_TOKEN: TOKEN },
  });
  process.stderr!.on('data', (chunk: Buffer) => (workerLogs += chunk.toString()));
  return { name, home, process };
}

/** How many runs each task's workflow id had: its own, and its landing's finalize and fix-ci runs. */
const runsOf = new Map<string, number>();

/** What a task's own run returned: its workflow id's first run (a finalize run of its landing reuses the id). */
async function firstRunResult(workflowId: string): Promise<TaskResult> {
  const runs: { runId: string; startTime: Date }[] = [];
  for await (const run of cluster.env.client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) runs.push(run);
  const first = runs.sort((a, b) => a.startTime.getTime() - b.startTime.getTime())[0];
  runsOf.set(workflowId, runs.length);
  return (await cluster.env.client.workflow.getHandle(workflowId, first.runId).result()) as TaskResult;
}

const forgeGit = (...args: string[]) => execFileSync('git', args, { cwd: forge.bare, encoding: 'utf8' }).trim();

describe('a roadmap on a forge repository, on a fleet of three workers', () => {
  it('lands its 6 tasks through pull requests, spread over the workers; a worker lost mid-phase costs its task the call in flight, and that task lands', async () => {
    const machines = ['a', 'b', 'c'].map(startMachine);
    await waitForPollers(cluster.env.client, fleetQueueOf(QUEUE), 3, 240_000).catch((err: unknown) => {
      throw new Error(`${(err as Error).message}; the workers said:\n${workerLogs}`);
    });
    // R1's first model call is held until its second is set to be held too: the second is the one in flight at the loss.
    const first = cluster.fake.holdRequest({ task: 'R1' });
    const cli = { TEMPORAL_ADDRESS: cluster.bed.address, DEX_TASK_QUEUE: QUEUE, DEX_HOME: mkdtempSync(join(tmpdir(), 'dex-fleet-roadmap-cli-')), DEX_STORE: db.url };
    const env = { ...cli, GITHUB_TOKEN: TOKEN, DEX_FORGE_API_URL: forge.secureApiUrl, DEX_FORGE_CA_FILE: forge.caFile, ANTHROPIC_API_KEY: 'test-key' };
    homes.push(cli.DEX_HOME);
    const repoUrl = `${new URL(forge.remoteUrl).origin}/${forge.owner}/${forge.repo}`;
    const started = await runDex(['run', 'ROADMAP.md', '--repo', repoUrl, '--detach', '--json'], { env, timeoutMs: 120_000 });
    expect(started.code, started.stderr).toBe(0);
    const { workflowId } = JSON.parse(started.stdout) as { workflowId: string };
    const handle = cluster.env.client.workflow.getHandle(workflowId);
    // `dex webhook`'s part: the forge's CI results wake the waits for them.
    const stopHooks = webhook(forge, handle);
    try {
      await first.reached;
      const second = cluster.fake.holdRequest({ task: 'R1' });
      first.release();
      await second.reached;
      const r1 = cluster.env.client.workflow.getHandle((await handle.query<RunStatus>('status')).tasks!.find((t) => t.id === 'R1')!.workflowId!);
      const holder = (await r1.query<RunStatus>('status')).worker;
      const lost = machines.find((m) => m.name === holder)!;
      expect(lost, `R1's worker ${holder}`).toBeDefined();
      const lostAt = Date.now();
      await crashWorker(lost.process);
      rmSync(lost.home, { recursive: true, force: true });
      second.release();

      const result = (await handle.result()) as RoadmapResult;
      expect(result.tasks.map((t) => [t.id, t.state])).toEqual(TASKS.map((t) => [t, 'completed']));
      // R1 moved within the bound and redid only the call in flight: 3 answers, 4 asks.
      const r1Result = await firstRunResult(r1.workflowId);
      expect(r1Result.moves?.[0]).toMatchObject({ from: lost.name });
      expect(Date.parse(r1Result.moves![0].at) - lostAt).toBeLessThan(60_000);
      const perCall = requestsPerCall(cluster.fake.requestsFor('R1'));
      expect(perCall.size).toBe(3);
      expect([...perCall.values()].filter((n) => n > 1)).toEqual([2]);
      const workers = await Promise.all(result.tasks.map(async (t) => (await firstRunResult(t.workflowId!)).worker));
      console.log(`tasks' workers: ${result.tasks.map((t, i) => `${t.id}@${workers[i]} (${runsOf.get(t.workflowId!)} runs)`).join(', ')}; R1's was lost ${((Date.now() - lostAt) / 1000).toFixed(1)} s before the end`);
      expect(new Set(workers).size).toBeGreaterThanOrEqual(2);

      // Six pull requests, each merged; every task's file on main and every box ticked there.
      expect(forge.pullsCreated()).toBe(6);
      expect(forge.pulls.every((p) => p.state === 'closed')).toBe(true);
      for (const t of TASKS.slice(1)) expect(forgeGit('show', `main:src/${t}.js`)).toBe(`exports.${t} = 1;`);
      expect(forgeGit('show', 'main:src/R1a.js')).toBe('exports.a = 1;');
      expect(forgeGit('show', 'main:src/R1b.js')).toBe('exports.b = 1;');
      const roadmap = forgeGit('show', 'main:ROADMAP.md');
      for (const t of TASKS) expect(roadmap).toContain(`- [x] ${t}:`);
      // Landed, a task's recorded worktree is needed no more: no hidden ref is left on the forge.
      expect(forgeGit('for-each-ref', 'refs/dex/')).toBe('');

      // The token is in none of: the run's history, the store, the workers' logs, what the workers and the client keep.
      expect(JSON.stringify(await handle.fetchHistory()).includes(TOKEN)).toBe(false);
      expect(workerLogs.includes(TOKEN)).toBe(false);
      expect(spawnSync('git', ['grep', '-l', TOKEN, 'main'], { cwd: forge.bare, encoding: 'utf8' }).stdout).toBe('');
      for (const m of machines.filter((x) => x !== lost)) expect(allText(m.home).includes(TOKEN), m.name).toBe(false);
      expect(allText(cli.DEX_HOME).includes(TOKEN)).toBe(false);
    } finally {
      stopHooks();
    }
  }, 900_000);
});
