import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { TaskResult } from '../core/task/task-types';
import { completionTurn, toolTurn, usageTotals } from './cassette-builder';
import { useDexEnvironment } from './dex-environment';
import { commitsOnBranch, sampleRepo, taskInput } from './dev-server-env';
import { crashWorker, killDexWorkers, requestsPerCall, spawnDexWorker } from './worker-process';

const TASK = 'T-crash';
const WORKFLOW_ID = `task-math-${TASK}-1`;
const QUEUE = 'dex-crash';
const HOST_QUEUE = 'dex-crash@host-a';
// The third model call (reply stored at transcript seq 5) hangs until the worker is killed.
const HANGING_CALL = `${WORKFLOW_ID}/implement/1#5`;

const CASSETTE = [
  toolTurn(TASK, ['read_file', { path: 'src/math.js' }]),
  toolTurn(TASK, ['edit_file', { path: 'src/math.js', old_string: 'return a - b;', new_string: 'return a + b;' }]),
  toolTurn(TASK, ['run_command', { command: 'node --test' }]),
  completionTurn(TASK, { status: 'complete', summary: 'sum adds' }),
];

// The workers are real `dex worker` processes, started and killed by the test.
const dex = useDexEnvironment({ server: 'dev', cassette: CASSETTE });
const dexHome = mkdtempSync(join(tmpdir(), 'dex-crash-home-'));

/** A real `dex worker` process on this file's server, queues and fake. */
function startWorkerProcess(): ChildProcess {
  return spawnDexWorker({ address: dex.env.address, dexHome, taskQueue: QUEUE, hostQueue: HOST_QUEUE, anthropicUrl: dex.fake.url });
}

afterAll(() => killDexWorkers());

describe('a worker killed with SIGKILL in the middle of a task', () => {
  it('is replaced by a new worker that finishes the task: one commit, no completed model turn requested again', async () => {
    dex.fake.injectFault({ kind: 'timeout', match: { call: HANGING_CALL } });
    const first = startWorkerProcess();
    const repo = sampleRepo();
    const handle = await dex.client.workflow.start('taskWorkflow', {
      workflowId: WORKFLOW_ID,
      taskQueue: QUEUE,
      args: [taskInput(TASK, repo, HOST_QUEUE)],
    });

    await expect.poll(() => dex.fake.requests.some((r) => r.headers['x-dex-call'] === HANGING_CALL), { timeout: 60_000, interval: 100 }).toBe(true);
    await crashWorker(first);

    startWorkerProcess();
    const result = (await handle.result()) as TaskResult;

    expect(result.state).toBe('completed');
    expect(commitsOnBranch(repo, result.branch)).toHaveLength(1);
    const perCall = requestsPerCall(dex.fake.requests);
    // Every call was made once, except the one in flight when the worker died.
    expect([...perCall.entries()].filter(([, n]) => n > 1)).toEqual([[HANGING_CALL, 2]]);
    expect(perCall.size).toBe(4);
    // Each answered turn is counted once: the call that died unanswered costs nothing.
    expect(result.tokens).toEqual(usageTotals(CASSETTE));
  }, 120_000);
});
