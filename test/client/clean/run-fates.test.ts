import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { planClean } from '../../../client/clean/clean-plan';
import type { Scan } from '../../../client/clean/leftover-scan';
import { RunFates } from '../../../client/clean/run-fates';
import type { TaskResult } from '../../../core/task/task-types';

/** A run as describe answers it, and what its result is. */
interface FakeRun {
  type: string;
  status: 'RUNNING' | 'COMPLETED' | 'FAILED' | 'CANCELED';
  parent?: string;
  result?: Partial<TaskResult>;
}

/** A client whose server knows `runs`, by id. */
function clientOf(runs: Record<string, FakeRun>): Client {
  const getHandle = (id: string) => ({
    describe: async () => {
      const run = runs[id];
      return {
        type: run.type,
        status: { name: run.status },
        typedSearchAttributes: { get: () => undefined },
        parentExecution: run.parent ? { workflowId: run.parent } : undefined,
        rootExecution: run.parent ? { workflowId: run.parent } : undefined,
      };
    },
    result: async () => runs[id].result,
  });
  return { workflow: { getHandle } } as unknown as Client;
}

const TASK = 'task-math-fix-1';
const task = (status: FakeRun['status'], chosen?: string): FakeRun => ({ type: 'taskWorkflow', status, ...(chosen ? { result: { chosen: { name: chosen, by: 'evidence', reason: '' } } } : {}) });
const attempt = (status: FakeRun['status']): FakeRun => ({ type: 'taskWorkflow', status, parent: TASK });

describe("dex clean: a best-of-N task's attempts are its own (docs/attempts.md#branches-and-dex-clean)", () => {
  it('keeps the chosen attempt of a completed task as its result, and lets the others go however they ended', async () => {
    const fates = new RunFates(clientOf({ [TASK]: task('COMPLETED', 'B'), [`${TASK}-A`]: attempt('COMPLETED'), [`${TASK}-B`]: attempt('COMPLETED'), [`${TASK}-C`]: attempt('CANCELED') }), 'default');
    expect(await fates.of(`${TASK}-A`)).toEqual({ kind: 'ended', state: `completed, attempt of ${TASK}, not chosen`, completed: false });
    expect(await fates.of(`${TASK}-B`)).toEqual({ kind: 'ended', state: `completed, attempt of ${TASK}, chosen`, completed: true });
    expect(await fates.of(`${TASK}-C`)).toMatchObject({ kind: 'ended', completed: false });
  });

  it("lets every attempt's branch go when the task did not complete, and keeps them all while it is open", async () => {
    const failed = new RunFates(clientOf({ [TASK]: task('FAILED'), [`${TASK}-A`]: attempt('COMPLETED') }), 'default');
    expect(await failed.of(`${TASK}-A`)).toMatchObject({ kind: 'ended', completed: false });
    const open = new RunFates(clientOf({ [TASK]: task('RUNNING'), [`${TASK}-A`]: attempt('COMPLETED') }), 'default');
    expect(await open.of(`${TASK}-A`)).toEqual({ kind: 'open', state: 'completed', under: TASK });
  });

  it("judges a roadmap's task by its own end, as before", async () => {
    const fates = new RunFates(clientOf({ 'roadmap-math-1': { type: 'roadmapWorkflow', status: 'COMPLETED' }, [TASK]: { type: 'taskWorkflow', status: 'COMPLETED', parent: 'roadmap-math-1' } }), 'default');
    expect(await fates.of(TASK)).toEqual({ kind: 'ended', state: 'completed', completed: true });
  });

  it('plans the losing attempts\' branches for removal and keeps the chosen one\'s', async () => {
    const fates = new RunFates(clientOf({ [TASK]: task('COMPLETED', 'B'), [`${TASK}-A`]: attempt('COMPLETED'), [`${TASK}-B`]: attempt('COMPLETED') }), 'default');
    const repo = { gitDir: '/r/.git', path: '/r' };
    const scan: Scan = { worktrees: [], bases: [], sessions: [], demos: [], branches: ['A', 'B'].map((n) => ({ branch: `dex/${TASK}-${n}`, run: `${TASK}-${n}`, repo })) };
    const plan = await planClean(scan, fates);
    expect(plan.removals.map((r) => r.entry)).toEqual([{ kind: 'branch', path: `dex/${TASK}-A`, repo: '/r', run: `${TASK}-A`, state: `completed, attempt of ${TASK}, not chosen` }]);
    expect(plan.kept).toEqual([]);
  });
});
