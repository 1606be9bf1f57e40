/**
 * The fleet on the cluster test bed (docs/fleet.md): tasks on a forge repository (the fake GitHub: a
 * real bare repository served over HTTPS) run on three real `dex worker` processes, each with its
 * own DEX_HOME (mirrors, worktrees, caches) as separate machines would have, sharing the Temporal
 * server and dex's store on PostgreSQL. A worker SIGKILLed mid-phase and its home deleted (the
 * machine lost for good): the task moves to another worker within the stated bound, redoes at most
 * the turn in flight, and completes from the worktree it had recorded on the forge.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ForgeRepository } from '../../core/fleet/repo-locator';
import { fleetQueueOf } from '../../core/fleet/placement-types';
import { taskStateRef } from '../../core/run/ids';
import { runDetails } from '../../workflows/run/run-details';
import type { RunStatus } from '../../core/run/run-types';
import type { TaskInput, TaskResult } from '../../core/task/task-types';
import { completionTurn, toolTurn } from '../support/model/cassette-builder';
import { taskInput } from '../support/env/dev-server-env';
import { runDex } from '../support/env/dex-cli';
import { postgresBin } from '../../scripts/cluster/tools';
import { allText } from '../support/env/tree-text';
import { startFakeForge, type FakeForge } from '../support/forge/fake-forge';
import { crashWorker, killDexWorkers, requestsPerCall, spawnDexWorker } from '../support/env/worker-process';
import { useClusterEnv, waitForPollers } from './cluster-env';
import { createTestDatabase, type TestDatabase } from './test-database';

const QUEUE = 'dex-fleet-test';
const TOKEN = 'fleet-forge-token-0123456789';
const write = (task: string, path: string, content: string) => toolTurn(task, ['write_file', { path, content }]);
const done = (task: string) => completionTurn(task, { status: 'complete', summary: `${task} done` });

const CASSETTE = [
  // F1 writes one file, is lost while asking for its second turn, and finishes on another worker.
  write('F1', 'src/one.js', 'exports.one = () => 1;\n'),
  write('F1', 'src/two.js', 'exports.two = () => 2;\n'),
  done('F1'),
  ...['S1', 'S2', 'S3', 'D1', 'D2', 'C1', 'C2', 'A1-A', 'A1-B', 'A1-C'].flatMap((t) => [write(t, `src/${t}.js`, `exports.${t} = 1;\n`), done(t)]),
];

const cluster = useClusterEnv({ cassette: CASSETTE });
let db: TestDatabase;
let forge: FakeForge;
let repo: ForgeRepository;
const homes: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase(cluster.bed, 'dex_fleet');
  forge = await startFakeForge({ token: TOKEN, gitAuth: true, protection: null });
  await forge.commit('main', { 'package.json': '{ "name": "fleet-demo", "private": true }\n', 'test/ok.test.js': "require('node:test')('ok', () => {});\n" });
  const host = new URL(forge.remoteUrl).host;
  repo = { kind: 'forge', forge: 'github', apiUrl: forge.apiUrl, tokenEnv: 'GITHUB_TOKEN', host, owner: forge.owner, repo: forge.repo, gitUrl: forge.remoteUrl, caFile: forge.caFile };
});

afterEach(() => killDexWorkers());

afterAll(async () => {
  killDexWorkers();
  await db?.drop();
  await forge?.close();
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

/** A worker "machine": a `dex worker` with its own DEX_HOME, mirrors and caches, on the shared store. */
function startMachine(name: string, args: string[] = [], depsCache?: string): { name: string; home: string; process: ChildProcess } {
  const home = mkdtempSync(join(tmpdir(), `dex-fleet-${name}-`));
  homes.push(home);
  const process = spawnDexWorker({
    address: cluster.bed.address, dexHome: home, taskQueue: QUEUE, hostQueue: `${QUEUE}@${name}-host`, anthropicUrl: cluster.fake.url, args,
    env: { DEX_STORE: db.url, DEX_WORKER_NAME: name, GITHUB_TOKEN: TOKEN, DEX_DEPS_CACHE: depsCache ?? join(home, 'deps') },
  });
  process.stderr!.on('data', (chunk: Buffer) => (workerLogs += chunk.toString()));
  return { name, home, process };
}

/** What every worker of this file wrote to its log (stderr). */
let workerLogs = '';

/**
 * Resolves once `count` workers poll the fleet's queue. The first start of a code version builds the CLI and
 * workflow bundles in each worker at once (a fresh clone's CI), which on 2 cores may take past a minute.
 */
async function workersUp(count: number): Promise<void> {
  await waitForPollers(cluster.env.client, fleetQueueOf(QUEUE), count, 240_000).catch((err: unknown) => {
    throw new Error(`${(err as Error).message}; the workers said:\n${workerLogs}`);
  });
}

/** Starts task `taskId` on the forge repository: it asks the fleet's queue for a worker. */
async function startFleetTask(taskId: string, setup: TaskInput['setup'] = false, more: Partial<TaskInput> = {}): Promise<WorkflowHandle> {
  const input = taskInput(taskId, repo.gitUrl, `${QUEUE}@nowhere`, { repo, fleetQueue: fleetQueueOf(QUEUE), verify: ['node --test'], setup, ...more });
  return cluster.env.client.workflow.start('taskWorkflow', { workflowId: `task-fleet-${taskId}-1`, taskQueue: QUEUE, args: [input] });
}

const status = (handle: WorkflowHandle) => handle.query<RunStatus>('status');
const forgeGit = (...args: string[]) => execFileSync('git', args, { cwd: forge.bare, encoding: 'utf8' }).trim();

describe('a fleet of three workers on the cluster test bed', () => {
  it('a worker lost for good mid-phase: the task moves within the bound, redoes at most the turn in flight, and completes', async () => {
    const machines = ['m1', 'm2', 'm3'].map((n) => startMachine(n));
    await workersUp(3);
    // The first model call is held until the second is set to be held too: the second is then the one in flight at the loss.
    const first = cluster.fake.holdRequest({ task: 'F1' });
    const handle = await startFleetTask('F1');
    await first.reached;
    const second = cluster.fake.holdRequest({ task: 'F1' });
    first.release();
    await second.reached;
    const holder = (await status(handle)).worker;
    const lost = machines.find((m) => m.name === holder)!;
    expect(lost, `the task's worker ${holder}`).toBeDefined();
    // `dex workers` lists the three, and the task under the one that holds it.
    const listed = await runDex(['workers', '--json'], { env: { TEMPORAL_ADDRESS: cluster.bed.address, DEX_TASK_QUEUE: QUEUE, DEX_HOME: mkdtempSync(join(tmpdir(), 'dex-fleet-cli-')) } });
    expect(listed.code, listed.stderr).toBe(0);
    const fleet = JSON.parse(listed.stdout) as { workers: { name: string; tasks: { workflowId: string }[] }[] };
    expect(fleet.workers.map((w) => w.name)).toEqual(['m1', 'm2', 'm3']);
    expect(fleet.workers.find((w) => w.name === holder)!.tasks.map((t) => t.workflowId)).toEqual([handle.workflowId]);
    // The worktree after turn 1 is on the forge's hidden ref before the loss.
    expect(forgeGit('show', `${taskStateRef(handle.workflowId)}:src/one.js`)).toBe('exports.one = () => 1;');
    const lostAt = Date.now();
    await crashWorker(lost.process);
    rmSync(lost.home, { recursive: true, force: true });
    second.release();

    const result = (await handle.result()) as TaskResult;
    expect(result.state).toBe('completed');
    expect(result.moves).toHaveLength(1);
    expect(result.moves![0]).toMatchObject({ from: lost.name });
    expect(result.worker).not.toBe(lost.name);
    const noticedWithin = Date.parse(result.moves![0].at) - lostAt;
    console.log(`the loss of ${lost.name} was noticed in ${(noticedWithin / 1000).toFixed(1)} s; the task moved to ${result.worker}`);
    expect(noticedWithin).toBeLessThan(60_000);
    // The Web UI's current details and `dex status` name the worker and the move.
    const details = runDetails(await status(handle), handle.workflowId);
    expect(details).toContain(`worker: ${result.worker}; moved from ${lost.name} at `);
    // Three answers in the cassette; only the call in flight at the loss was asked twice.
    const perCall = requestsPerCall(cluster.fake.requestsFor('F1'));
    expect(perCall.size).toBe(3);
    expect([...perCall.values()].filter((n) => n > 1)).toEqual([2]);
    // The commit holds turn 1's file, which only the recorded worktree carried to the new worker, and turn 2's.
    expect(forgeGit('rev-parse', `${taskStateRef(handle.workflowId)}^`)).toBe(result.commit);
    expect(forgeGit('show', `${result.commit}:src/one.js`)).toBe('exports.one = () => 1;');
    expect(forgeGit('show', `${result.commit}:src/two.js`)).toBe('exports.two = () => 2;');
    // The token is in none of the recorded commits, nor the run's history.
    expect(spawnSync('git', ['grep', '-l', TOKEN, taskStateRef(handle.workflowId)], { cwd: forge.bare, encoding: 'utf8' }).stdout).toBe('');
    expect(JSON.stringify(await handle.fetchHistory()).includes(TOKEN)).toBe(false);
    // Nor the shared store, nor the workers' logs, nor what the surviving workers keep on disk.
    const dump = execFileSync(join(postgresBin(), 'pg_dump'), ['--data-only', db.url], { encoding: 'utf8', maxBuffer: 64 << 20 });
    expect(dump).toContain(handle.workflowId);
    expect(dump.includes(TOKEN)).toBe(false);
    expect(workerLogs.includes(TOKEN)).toBe(false);
    for (const m of machines.filter((x) => x !== lost)) expect(allText(m.home).includes(TOKEN), m.name).toBe(false);
  }, 420_000);

  it('three tasks on three workers of one task each: one a worker, none crowding another', async () => {
    const machines = ['w1', 'w2', 'w3'].map((n) => startMachine(n, ['--tasks', '1']));
    await workersUp(3);
    const handles = await Promise.all(['S1', 'S2', 'S3'].map((t) => startFleetTask(t)));
    const results = (await Promise.all(handles.map((h) => h.result()))) as TaskResult[];
    expect(results.map((r) => r.state)).toEqual(['completed', 'completed', 'completed']);
    expect(new Set(results.map((r) => r.worker))).toEqual(new Set(machines.map((m) => m.name)));
  }, 420_000);

  it('a fleet task of three attempts on three workers of one task each: an attempt on each, the chosen one on the forge', async () => {
    const machines = ['b1', 'b2', 'b3'].map((n) => startMachine(n, ['--tasks', '1']));
    await workersUp(3);
    const handle = await startFleetTask('A1', false, { attempts: { count: 3 } });
    const result = (await handle.result()) as TaskResult;
    expect(result.state, result.error).toBe('completed');
    const attempts = (await Promise.all(result.attempts!.map((r) => cluster.env.client.workflow.getHandle(r.workflowId).result()))) as TaskResult[];
    expect(new Set(attempts.map((a) => a.worker))).toEqual(new Set(machines.map((m) => m.name)));
    // The chosen attempt's commit is on the forge, where a landing on any worker starts from.
    expect(forgeGit('cat-file', '-t', result.commit!)).toBe('commit');
    expect(result.branch).toBe(`dex/task-fleet-A1-1-${result.chosen!.name}`);
  }, 420_000);

  it('a drained worker takes no new task, finishes the one it holds, and exits', async () => {
    const machines = ['d1', 'd2'].map((n) => startMachine(n));
    await workersUp(2);
    const held = cluster.fake.holdRequest({ task: 'D1' });
    const first = { handle: await startFleetTask('D1') };
    await held.reached;
    const holder = (await status(first.handle)).worker;
    const drained = machines.find((m) => m.name === holder)!;
    const other = machines.find((m) => m !== drained)!;
    const exited = once(drained.process, 'exit');
    const saidDraining = new Promise<void>((resolve) => drained.process.stderr!.on('data', (chunk: Buffer) => chunk.toString().includes('draining: no new task') && resolve()));
    const drain = runDex(['worker', '--drain'], { env: { DEX_HOME: drained.home, TEMPORAL_ADDRESS: cluster.bed.address }, timeoutMs: 120_000 });
    await saidDraining;
    const second = { handle: await startFleetTask('D2') };
    held.release();
    const [one, two] = (await Promise.all([first.handle.result(), second.handle.result()])) as TaskResult[];
    // The drained worker finished the task it held there, moved nothing, and took the new one nowhere.
    expect(one).toMatchObject({ state: 'completed', worker: drained.name });
    expect(one.moves).toBeUndefined();
    expect(two).toMatchObject({ state: 'completed', worker: other.name });
    expect(await exited).toEqual([0, null]);
    const said = await drain;
    expect(said.code, said.stderr).toBe(0);
    expect(said.stderr).toContain('drained and exited');
  }, 420_000);

  it('two workers filling one key of a shared dependency cache at once: one install, one entry, both tasks set up', async () => {
    const shared = mkdtempSync(join(tmpdir(), 'dex-fleet-shared-deps-'));
    homes.push(shared);
    ['s1', 's2'].forEach((n) => startMachine(n, ['--tasks', '1'], shared));
    await workersUp(2);
    // Long enough that the second task's setup meets the first's install under way.
    const install = "sleep 6 && mkdir -p node_modules/dep && echo 'module.exports = 42;' > node_modules/dep/index.js";
    const setup = { commands: [install], cache: ['node_modules'], inputs: ['package.json'] };
    const results = (await Promise.all((await Promise.all(['C1', 'C2'].map((t) => startFleetTask(t, setup)))).map((h) => h.result()))) as TaskResult[];
    expect(results.map((r) => r.state)).toEqual(['completed', 'completed']);
    expect(new Set(results.map((r) => r.worker)).size).toBe(2);
    console.log(`two tasks' setups on one shared cache: ${results.map((r) => `${r.worker}: ${r.setup}`).join('; ')}`);
    expect(results.map((r) => r.setup?.replace(/ [\d.]+ s$/, '')).sort()).toEqual(['commands from cache', 'commands installed']);
    expect(readdirSync(shared).filter((name) => !name.startsWith('.'))).toHaveLength(1);
  }, 420_000);
});
