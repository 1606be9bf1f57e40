/**
 * dex on a real Temporal cluster (docs/production.md#the-cluster-test-bed): PostgreSQL and the
 * Temporal server built from source, a task and a roadmap run to the end, and both survive the
 * loss of the server process and of the database's connections without a commit or row twice.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { RoadmapResult } from '../../core/roadmap/roadmap-types';
import type { TaskResult } from '../../core/task/task-types';
import { completionTurn, fixSumTurns, toolTurn } from '../support/model/cassette-builder';
import { waitForGate } from '../support/env/dex-environment';
import { commitsOnBranch, fileAt } from '../support/env/dev-server-env';
import { roadmapRepo, subjects } from '../support/plans/roadmap-fixture';
import { checkpointKeys, useClusterEnv } from './cluster-env';

const write = (task: string, path: string, content: string) => [
  toolTurn(task, ['write_file', { path, content }]),
  completionTurn(task, { status: 'complete', summary: `wrote ${path}` }),
];

const ROADMAP = `# Roadmap

- [ ] R1: Add double in src/double.js
- [ ] R2: Add mul in src/mul.js (depends: R1)
- [ ] R3: Write docs/notes.md
`;

const CASSETTE = [
  ...fixSumTurns('C-task'),
  ...write('R1', 'src/double.js', "const { sum } = require('./math');\nmodule.exports = { double: (a) => sum(a, a) };\n"),
  ...write('R2', 'src/mul.js', 'module.exports = { mul: (a, b) => a * b };\n'),
  ...write('R3', 'docs/notes.md', '# Notes\n'),
  completionTurn('C-gate', { status: 'blocked', reason: 'May I change sum?' }),
  ...fixSumTurns('C-gate'),
  ...fixSumTurns('C-crash'),
  ...fixSumTurns('C-pg'),
];

// Each model answer takes a little while, so a restart can land while a call is in flight.
const cluster = useClusterEnv({ cassette: CASSETTE, queue: 'dex-cluster', latencyMs: 300 });

/** The task's one implement commit on its branch, its phase row once, each checkpoint key once. */
async function expectOnce(repo: string, result: TaskResult, workflowId: string): Promise<void> {
  expect(result.state).toBe('completed');
  expect(commitsOnBranch(repo, result.branch)).toHaveLength(1);
  expect(fileAt(repo, result.commit!, 'src/math.js')).toContain('return a + b;');
  const keys = checkpointKeys(repo);
  expect(keys.length).toBeGreaterThan(0);
  expect(new Set(keys).size).toBe(keys.length);
  const phases = await cluster.worker.deps.store.listPhases(workflowId);
  expect(phases.filter((p) => p.phase === 'implement')).toHaveLength(1);
}

describe('dex on the cluster test bed (PostgreSQL + Temporal server)', () => {
  it('runs a task to the end', async () => {
    const { repo, handle } = await cluster.startTask('C-task');
    await expectOnce(repo, (await handle.result()) as TaskResult, handle.workflowId);
  });

  it('runs a 3-task roadmap to the end: every box ticked, one implement commit a task', async () => {
    const repo = roadmapRepo(ROADMAP, 'verify: ["node --test"]\nmaxParallel: 2\n');
    const handle = await cluster.startRoadmap(repo);
    const result = (await handle.result()) as RoadmapResult;
    expect(result.state).toBe('completed');
    expect(result.tasks.map((t) => [t.id, t.state])).toEqual(['R1', 'R2', 'R3'].map((id) => [id, 'completed']));
    const log = subjects(repo);
    for (const id of ['R1', 'R2', 'R3']) expect(log.filter((s) => s.startsWith(`dex(${id}): implement:`))).toHaveLength(1);
    expect(new Set(checkpointKeys(repo)).size).toBe(checkpointKeys(repo).length);
    execFileSync('node', ['--test'], { cwd: repo, stdio: 'ignore' });
  });

  it('a task waiting at a gate survives the Temporal server being SIGKILLed and restarted', async () => {
    const { repo, handle } = await cluster.startTask('C-gate');
    await waitForGate(handle, 'blocked');
    const before = cluster.bed.serverPid;
    await cluster.crashServer();
    expect(cluster.bed.serverPid).not.toBe(before);
    await handle.signal('approve', { note: 'go ahead', by: 'cluster-test' });
    await expectOnce(repo, (await handle.result()) as TaskResult, handle.workflowId);
  });

  it('a task whose model call is in flight survives the Temporal server being SIGKILLed and restarted', async () => {
    const { repo, handle } = await cluster.startTask('C-crash');
    await cluster.waitForRequests('C-crash', 1);
    await cluster.crashServer();
    await expectOnce(repo, (await handle.result()) as TaskResult, handle.workflowId);
  });

  it('a run resumes after PostgreSQL restarts under it', async () => {
    const { repo, handle } = await cluster.startTask('C-pg');
    await cluster.waitForRequests('C-pg', 1);
    cluster.restartPostgres();
    await expectOnce(repo, (await handle.result()) as TaskResult, handle.workflowId);
  });
});
