import { ApplicationFailure, CancellationScope, isCancellation, setHandler, workflowInfo } from '@temporalio/workflow';
import { innermostMessage } from '../../core/failure-message';
import { taskBranch, taskWorktreeName } from '../../core/ids';
import type { TaskInput, TaskResult, Worktree } from '../../core/task-types';
import { statusQuery } from '../run/definitions';
import { notifyParent } from '../run/parent-link';
import { RunControl } from '../run/run-control';
import { hostActivities } from './activities';
import { runPhaseSequence } from './phase-sequence';
import { TaskProgress } from './progress';
import { FAILURE, nonRetryable } from '../../core/failure-types';

/**
 * One task on one repository: a branch and worktree of its own, its phases in order (by
 * weight, or its type's steps), each with optional gates, a checkpoint commit after every
 * verified phase that changes files, and the retry map sending a failed phase back to an
 * earlier one. The workflow history is the checkpoint of the run itself: after any crash it
 * resumes where it was.
 */
export async function taskWorkflow(input: TaskInput): Promise<TaskResult> {
  const { workflowId } = workflowInfo();
  const phases = input.phases?.length ? input.phases : ['implement'];
  const acts = hostActivities(input.hostQueue);
  // The parent (a roadmap) hears of every wait and its end, so its status shows who waits.
  const control: RunControl = new RunControl(() => notifyParent(input.taskId, progress));
  const progress = new TaskProgress(input.taskId, control, phases, !!input.type);
  progress.ledger.budget = input.budget;
  progress.sandbox = input.sandbox?.mode ?? 'bwrap';
  setHandler(statusQuery, () => progress.status());

  let worktree: Worktree | undefined;
  const finish = async (state: TaskResult['state'], extra: Partial<TaskResult> = {}): Promise<TaskResult> => {
    progress.ledger.end(state, extra.error);
    await notifyParent(input.taskId, progress);
    const { tokens, costUsd, turns } = progress.ledger.spent();
    const verifyPassed = progress.lastVerify?.passed ?? false;
    return { taskId: input.taskId, state, branch: worktree?.branch ?? taskBranch(workflowId), commit: progress.commit, turns, tokens, costUsd, verifyPassed, ...extra };
  };
  const failWith = async (type: typeof FAILURE.TaskFailed | typeof FAILURE.TaskRejected, state: 'failed' | 'rejected', error: string): Promise<never> => {
    throw nonRetryable(type, error, [await finish(state, { error })]);
  };
  const rollback = (wt: Worktree) => acts.rollbackWorktree({ worktreePath: wt.path, sha: progress.commit ?? wt.baseSha });

  try {
    worktree = await acts.prepareWorktree({ repoPath: input.repoPath, branch: taskBranch(workflowId), worktreeName: taskWorktreeName(workflowId) });
    progress.branch = worktree.branch;
    const outcome = await runPhaseSequence({ input, phases, worktree, acts, control, progress });
    if (outcome.kind === 'verified') {
      await acts.removeWorktree({ repoPath: input.repoPath, worktreePath: worktree.path });
      return await finish('completed', { summary: outcome.summary, verifyPassed: progress.lastVerify?.passed ?? true });
    }
    if (outcome.kind === 'rejected') {
      await rollback(worktree);
      return await failWith(FAILURE.TaskRejected, 'rejected', `rejected: ${outcome.reason}`);
    }
    // A failed run keeps its worktree as the agent left it, for a person to inspect.
    return await failWith(FAILURE.TaskFailed, 'failed', outcome.error);
  } catch (err) {
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(async () => {
        if (worktree) await rollback(worktree);
        await finish('cancelled');
      });
      throw err;
    }
    if (err instanceof ApplicationFailure && (err.type === FAILURE.TaskFailed || err.type === FAILURE.TaskRejected)) throw err;
    return await failWith(FAILURE.TaskFailed, 'failed', innermostMessage(err));
  }
}
