import { execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { TaskResult } from '../../../core/task/task-types';
import { completionTurn, toolTurn, usageTotals } from '../../support/model/cassette-builder';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { commitsOnBranch, fileAt, sampleRepo, taskInput } from '../../support/env/dev-server-env';
import { crashWorker, killDexWorkers, requestsPerCall, resultThroughCrashInCall, spawnDexWorker } from '../../support/env/worker-process';

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

// One turn of three tool calls: the fix, a command that appends a line, and a slow command the worker dies in.
const TOOLS_TASK = 'T-crash-tools';
const TOOLS_CASSETTE = [
  toolTurn(
    TOOLS_TASK,
    ['edit_file', { path: 'src/math.js', old_string: 'return a - b;', new_string: 'return a + b;' }],
    ['run_command', { command: 'echo once >> ran.txt' }],
    ['run_command', { command: 'touch slow-started; sleep 8; rm slow-started' }],
  ),
  completionTurn(TOOLS_TASK, { status: 'complete', summary: 'sum adds' }),
];

// The workers are real `dex worker` processes, started and killed by the test.
const dex = useDexEnvironment({ server: 'dev', cassette: [...CASSETTE, ...TOOLS_CASSETTE] });
const dexHome = mkdtempSync(join(tmpdir(), 'dex-crash-home-'));

/** A real `dex worker` process on this file's server, queues and fake. */
function startWorkerProcess(): ChildProcess {
  return spawnDexWorker({ address: dex.env.address, dexHome, taskQueue: QUEUE, hostQueue: HOST_QUEUE, anthropicUrl: dex.fake.url });
}

afterAll(() => killDexWorkers());

describe('a worker killed with SIGKILL in the middle of a task', () => {
  it('is replaced by a new worker that finishes the task: one commit, no completed model turn requested again', async () => {
    const repo = sampleRepo();
    const start = () => dex.client.workflow.start('taskWorkflow', { workflowId: WORKFLOW_ID, taskQueue: QUEUE, args: [taskInput(TASK, repo, HOST_QUEUE)] });
    const result = (await resultThroughCrashInCall(dex.fake, HANGING_CALL, startWorkerProcess, start)) as TaskResult;

    expect(result.state).toBe('completed');
    expect(commitsOnBranch(repo, result.branch)).toHaveLength(1);
    const perCall = requestsPerCall(dex.fake.requests);
    // Every call was made once, except the one in flight when the worker died.
    expect([...perCall.entries()].filter(([, n]) => n > 1)).toEqual([[HANGING_CALL, 2]]);
    expect(perCall.size).toBe(4);
    // Each answered turn is counted once: the call that died unanswered costs nothing.
    expect(result.tokens).toEqual(usageTotals(CASSETTE));
  }, 120_000);

  it('in the middle of a turn\'s tool calls is replaced by one that runs only the calls that had not finished', async () => {
    const queues = { taskQueue: 'dex-crash-tools', hostQueue: 'dex-crash-tools@host-a' };
    const home = mkdtempSync(join(tmpdir(), 'dex-crash-tools-home-'));
    const worker = () => spawnDexWorker({ address: dex.env.address, dexHome: home, ...queues, anthropicUrl: dex.fake.url });
    const first = worker();
    const repo = sampleRepo();
    const handle = await dex.client.workflow.start('taskWorkflow', {
      workflowId: `task-math-${TOOLS_TASK}-1`,
      taskQueue: queues.taskQueue,
      args: [taskInput(TOOLS_TASK, repo, queues.hostQueue)],
    });
    // The task's worktree, once dex made it; the slow command has started when its marker is there.
    const worktree = () => execFileSync('git', ['-C', repo, 'worktree', 'list', '--porcelain'], { encoding: 'utf8' }).match(/^worktree (.+)$/gm)?.map((l) => l.slice(9)).find((p) => p !== repo);
    await expect.poll(() => { const wt = worktree(); return wt !== undefined && existsSync(join(wt, 'slow-started')); }, { timeout: 60_000, interval: 100 }).toBe(true);
    await crashWorker(first);

    worker();
    const result = (await handle.result()) as TaskResult;
    expect(result.state).toBe('completed');
    // The append ran once: its stored result stood for it; the slow command ran again, to its end.
    expect(fileAt(repo, result.commit!, 'ran.txt')).toBe('once\n');
    expect(() => fileAt(repo, result.commit!, 'slow-started')).toThrow();
    // The turn's model call was not asked again: two calls, one request each.
    expect([...requestsPerCall(dex.requestsFor(TOOLS_TASK)).values()]).toEqual([1, 1]);
  }, 120_000);
});
