import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { costOf } from '../../../core/run/pricing';
import type { RunStatus } from '../../../core/run/run-types';
import type { TaskResult } from '../../../core/task/task-types';
import { completionTurn, fixSumTurns, TEST_MODEL, toolTurn, usageTotals } from '../../support/model/cassette-builder';
import { failureOf, useDexEnvironment, waitForGate } from '../../support/env/dex-environment';
import { commitsOnBranch, fileAt } from '../../support/env/dev-server-env';

const CASSETTE = {
  full: fixSumTurns('T-full'),
  approve: [
    completionTurn('T-approve', { status: 'blocked', reason: 'May I change the public API of sum?' }),
    ...fixSumTurns('T-approve'),
  ],
  reject: [
    toolTurn('T-reject', ['write_file', { path: 'scratch.txt', content: 'half-done work' }]),
    completionTurn('T-reject', { status: 'blocked', reason: 'Should I delete the tests?' }),
  ],
  faults: fixSumTurns('T-faults'),
  auth: fixSumTurns('T-auth'),
  escape: [toolTurn('T-escape', ['read_file', { path: '../../etc/passwd' }]), ...fixSumTurns('T-escape')],
};

const dex = useDexEnvironment({ server: 'dev', cassette: Object.values(CASSETTE).flat(), queue: 'dex-it-task' });

describe('taskWorkflow on a real dev server', () => {
  it('fixes the sample repository: one real commit, verify passing, usage and cost as the cassette says', async () => {
    const { repo, handle } = await dex.startTask('T-full');
    const result = (await handle.result()) as TaskResult;

    expect(result.state).toBe('completed');
    expect(result.verifyPassed).toBe(true);
    const commits = commitsOnBranch(repo, result.branch);
    expect(commits).toHaveLength(1);
    expect(commits[0]).toContain(result.commit);
    expect(fileAt(repo, result.commit!, 'src/math.js')).toContain('return a + b;');
    // The fix lives on the task branch; the base branch is untouched.
    expect(fileAt(repo, 'main', 'src/math.js')).toContain('return a - b;');

    const expected = usageTotals(CASSETTE.full);
    expect(result.tokens).toEqual(expected);
    expect(result.costUsd).toBeCloseTo(costOf(TEST_MODEL, expected), 10);
    expect(dex.requestsFor('T-full')).toHaveLength(3);

    const first = dex.requestsFor('T-full')[0].body!;
    expect(first.stream).toBe(true);
    expect(JSON.stringify(first.system)).toContain('"cache_control"');
    expect(JSON.stringify((first.tools as unknown[]).at(-1))).toContain('"cache_control"');
    // The phase record in the store: its tokens, cost, duration, model and commit.
    const [phase] = await dex.worker.deps.store.listPhases(handle.workflowId);
    expect(phase).toMatchObject({ phase: 'implement', state: 'verified', turns: 3, model: TEST_MODEL, commitSha: result.commit, ...expected });
    expect(phase.costUsd).toBeCloseTo(result.costUsd, 10);
    expect(phase.durationMs).toBeGreaterThan(0);
    // The transcript lives in the store: history holds no tool inputs or file contents.
    const history = JSON.stringify(await handle.fetchHistory());
    expect(history).not.toContain('return a + b;');
  });

  it('waits at a blocked gate until the stock CLI approves, and the note reaches the model', async () => {
    const { handle } = await dex.startTask('T-approve');
    // Replayed by test/workflows/replay.test.ts: blocked, approved, fixed, committed.
    dex.recordHistory(handle.workflowId, 'task-workflow-approve.json');
    const status = await waitForGate(handle, 'blocked');
    expect(status.state).toBe('waiting');
    expect(status.waitingFor?.reason).toContain('public API');

    const queried = JSON.parse(await dex.temporal('workflow', 'query', '--workflow-id', handle.workflowId, '--type', 'status', '-o', 'json'));
    expect(JSON.stringify(queried)).toContain('"waiting"');

    await dex.temporal('workflow', 'signal', '--workflow-id', handle.workflowId, '--name', 'approve', '--input', '{"note":"yes, keep it small","by":"ana"}');
    const result = (await handle.result()) as TaskResult;
    expect(result.state).toBe('completed');
    const afterApproval = JSON.stringify(dex.requestsFor('T-approve')[1].body!.messages);
    expect(afterApproval).toContain('yes, keep it small');
  });

  it('ends rejected when the stock CLI rejects at the blocked gate, and leaves the worktree clean', async () => {
    const { handle } = await dex.startTask('T-reject');
    await waitForGate(handle, 'blocked');
    await dex.temporal('workflow', 'signal', '--workflow-id', handle.workflowId, '--name', 'reject', '--input', '{"reason":"keep the tests"}');
    const failure = await failureOf(handle);
    expect(failure.type).toBe('TaskRejected');
    expect(failure.message).toContain('keep the tests');
    expect((failure.details?.[0] as TaskResult).state).toBe('rejected');
    expect((await handle.query<RunStatus>('status')).state).toBe('rejected');
    const worktree = join(dex.worker.dexHome, 'worktrees', handle.workflowId);
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: worktree, encoding: 'utf8' })).toBe('');
    expect(existsSync(join(worktree, 'scratch.txt'))).toBe(false);
  });

  it('retries a 429 (honouring retry-after) and a 529, then completes', async () => {
    dex.fake.injectFault({ status: 429, headers: { 'retry-after': '1' }, match: { task: 'T-faults' } });
    dex.fake.injectFault({ status: 529, match: { task: 'T-faults' } });
    const { handle } = await dex.startTask('T-faults');
    const result = (await handle.result()) as TaskResult;
    expect(result.state).toBe('completed');
    expect(dex.requestsFor('T-faults')).toHaveLength(5);
    const [first, second] = dex.requestsFor('T-faults');
    expect(second.time - first.time).toBeGreaterThanOrEqual(900);
  });

  it('fails at once with a clear message on a 401', async () => {
    dex.fake.injectFault({
      status: 401,
      body: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } },
      match: { task: 'T-auth' },
    });
    const { handle } = await dex.startTask('T-auth');
    const failure = await failureOf(handle);
    expect(failure.type).toBe('TaskFailed');
    expect(failure.message).toMatch(/401.*invalid x-api-key/);
    expect(dex.requestsFor('T-auth')).toHaveLength(1);
  });

  it('answers a tool call reading ../../etc/passwd with a tool error and goes on', async () => {
    const { handle } = await dex.startTask('T-escape');
    const result = (await handle.result()) as TaskResult;
    expect(result.state).toBe('completed');
    const second = JSON.stringify(dex.requestsFor('T-escape')[1].body!.messages);
    expect(second).toContain('"is_error":true');
    expect(second).toContain('outside the worktree');
    expect(second).not.toContain('root:x:0:0');
  });
});
