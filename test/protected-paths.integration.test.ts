import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunStatus, TaskResult } from '../core/types';
import { completionTurn, toolTurn } from './cassette-builder';
import { commitsOnBranch, fileAt, sampleRepo, startDevServer, startTestWorker, taskInput, type TestWorker } from './dev-server-env';
import { startFakeAnthropic, type FakeAnthropic } from './fake-anthropic-server';

/** A task that fixes `sum` and, on the way, loosens the verify command and the CI workflow. */
const rewritesChecks = (task: string) => [
  toolTurn(
    task,
    ['edit_file', { path: 'src/math.js', old_string: 'return a - b;', new_string: 'return a + b;' }],
    ['write_file', { path: 'dex.config.yaml', content: 'verify:\n  - "true"\n' }],
    ['write_file', { path: '.github/workflows/ci.yml', content: 'on: push\njobs: {}\n' }],
  ),
  completionTurn(task, { status: 'complete', summary: 'sum adds; checks simplified' }),
];

let env: TestWorkflowEnvironment;
let fake: FakeAnthropic;
let worker: TestWorker;

beforeAll(async () => {
  env = await startDevServer();
  fake = await startFakeAnthropic({ cassette: [...rewritesChecks('P-reject'), ...rewritesChecks('P-approve')] });
  worker = await startTestWorker(env, { anthropicUrl: fake.url, queue: 'dex-it-protected' });
});

afterAll(async () => {
  await worker?.stop();
  await fake?.close();
  await env?.teardown();
});

async function start(taskId: string) {
  const repo = sampleRepo();
  const input = taskInput(taskId, repo, worker.hostQueue, { protectedPaths: ['dex.config.yaml', '.github/workflows/**'] });
  const handle = await env.client.workflow.start('taskWorkflow', { workflowId: `task-math-${taskId}-1`, taskQueue: worker.taskQueue, args: [input] });
  return { repo, handle };
}

/** The run's status once it waits at a gate. */
async function waiting(handle: WorkflowHandle): Promise<RunStatus> {
  for (;;) {
    const status = await handle.query<RunStatus>('status');
    if (status.waitingFor) return status;
    if (status.state !== 'running') throw new Error(`ended ${status.state}: ${status.error}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('protected paths', () => {
  it('a change to dex.config.yaml or CI files waits for a person; rejected, nothing of it lands', async () => {
    const { repo, handle } = await start('P-reject');
    const status = await waiting(handle);
    expect(status.waitingFor).toMatchObject({ gate: 'protected:implement', reason: 'the change touches protected paths: .github/workflows/ci.yml, dex.config.yaml' });
    expect(commitsOnBranch(repo, `dex/${handle.workflowId}`)).toEqual([]);
    await handle.signal('reject', { reason: 'keep the checks' });
    await expect(handle.result()).rejects.toThrow();
    expect((await handle.query<RunStatus>('status')).state).toBe('rejected');
    expect(commitsOnBranch(repo, `dex/${handle.workflowId}`)).toEqual([]);
  });

  it('approved, the change is committed as it was verified', async () => {
    const { repo, handle } = await start('P-approve');
    expect((await waiting(handle)).waitingFor?.gate).toBe('protected:implement');
    await handle.signal('approve', { by: 'owner' });
    const result = (await handle.result()) as TaskResult;
    expect(result.state).toBe('completed');
    expect(commitsOnBranch(repo, result.branch)).toHaveLength(1);
    expect(fileAt(repo, result.commit!, 'dex.config.yaml')).toBe('verify:\n  - "true"\n');
  });
});
