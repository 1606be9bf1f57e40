import { describe, expect, it } from 'vitest';
import type { RunStatus } from '../../../core/run/run-types';
import type { TaskResult } from '../../../core/task/task-types';
import { completionTurn, toolTurn } from '../../support/model/cassette-builder';
import { useDexEnvironment, waitForGate } from '../../support/env/dex-environment';
import { commitsOnBranch, fileAt } from '../../support/env/dev-server-env';

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

const dex = useDexEnvironment({ server: 'dev', cassette: [...rewritesChecks('P-reject'), ...rewritesChecks('P-approve')], queue: 'dex-it-protected' });

const start = (taskId: string) => dex.startTask(taskId, { protectedPaths: ['dex.config.yaml', '.github/workflows/**'] });

describe('protected paths', () => {
  it('a change to dex.config.yaml or CI files waits for a person; rejected, nothing of it lands', async () => {
    const { repo, handle } = await start('P-reject');
    const status = await waitForGate(handle);
    expect(status.waitingFor).toMatchObject({ gate: 'protected:implement', reason: 'the change touches protected paths: .github/workflows/ci.yml, dex.config.yaml' });
    expect(commitsOnBranch(repo, `dex/${handle.workflowId}`)).toEqual([]);
    await handle.signal('reject', { reason: 'keep the checks' });
    await expect(handle.result()).rejects.toThrow();
    expect((await handle.query<RunStatus>('status')).state).toBe('rejected');
    expect(commitsOnBranch(repo, `dex/${handle.workflowId}`)).toEqual([]);
  });

  it('approved, the change is committed as it was verified', async () => {
    const { repo, handle } = await start('P-approve');
    expect((await waitForGate(handle)).waitingFor?.gate).toBe('protected:implement');
    await handle.signal('approve', { by: 'owner' });
    const result = (await handle.result()) as TaskResult;
    expect(result.state).toBe('completed');
    expect(commitsOnBranch(repo, result.branch)).toHaveLength(1);
    expect(fileAt(repo, result.commit!, 'dex.config.yaml')).toBe('verify:\n  - "true"\n');
  });
});
