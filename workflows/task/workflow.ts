import { ApplicationFailure, CancellationScope, isCancellation, patched, setHandler, workflowInfo } from '@temporalio/workflow';
import { innermostMessage } from '../../core/run/failure-message';
import { repoNameOf, taskBranch } from '../../core/run/ids';
import { describeSetup, setupDidSomething } from '../../core/run/setup-types';
import type { TaskInput, TaskResult, Worktree } from '../../core/task/task-types';
import { sessionStepSignal, statusQuery } from '../../core/run/definitions';
import { RunControl } from '../run/run-control';
import { hostActivities } from './activities';
import { placeTask, recordState } from './fleet/take-up';
import { runFinalize } from './finalize';
import { runBranchPhase } from './branch-phase';
import { passUnverified } from './gate-decision';
import { attemptEvidence } from './attempts/attempt-evidence';
import { bestOfAttempts } from './attempts/best-of';
import { runPhaseSequence } from './phase-sequence';
import { endedFields, TaskProgress } from './progress';
import { TaskBudget } from './task-budget';
import { startTask } from './task-start';
import { TaskPlanner } from './planner';
import { TaskRun } from './task-run';
import { FAILURE, nonRetryable } from '../../core/run/failure-types';

/**
 * One task on one repository: a branch and worktree of its own, its phases in order (by
 * weight, or its type's steps), each with optional gates, a checkpoint commit after every
 * verified phase that changes files, and the retry map sending a failed phase back to an
 * earlier one. The workflow history is the checkpoint of the run itself: after any crash it
 * resumes where it was.
 */
export async function taskWorkflow(input: TaskInput): Promise<TaskResult> {
  if (input.attempts && input.attempts.count > 1) return bestOfAttempts(input);
  const { workflowId } = workflowInfo();
  // A copy: the planner may replace the steps not yet run (./planner.ts).
  const phases = [...(input.phases?.length ? input.phases : ['implement'])];
  // The parent (a roadmap) hears of every wait and its end, so its status shows who waits.
  const control: RunControl = new RunControl(async () => {
    progress.ledger.publish();
    await progress.parent.tell();
  });
  const progress = new TaskProgress(input.taskId, control, phases, input.type, input.holdSpendingMs);
  progress.ledger.budget = input.budget;
  const budget = new TaskBudget(input, progress.ledger, control, progress.parent);
  progress.sandbox = input.sandbox?.mode ?? 'bwrap';
  if (input.rewind) progress.retryOf = { workflowId: input.rewind.fromWorkflowId, phase: input.rewind.fromPhase };
  const placement = placeTask(input, progress, () => run, hostActivities);
  const acts = hostActivities(placement, (call) => run.relocate(call));
  const run = new TaskRun(input, phases, acts, control, progress, budget, new TaskPlanner(input, acts, control, progress));
  setHandler(statusQuery, () => progress.status());
  setHandler(sessionStepSignal, ({ phase, step }) => progress.ledger.step(`${phase} claude-code ${step}`));
  progress.ledger.attach(() => progress.status(), repoNameOf(input.repoPath));

  let worktree: Worktree | undefined;
  const finish = async (state: TaskResult['state'], extra: Partial<TaskResult> = {}): Promise<TaskResult> => {
    placement.release();
    progress.ledger.end(state, extra.error);
    await progress.parent.tell();
    const { tokens, costUsd, turns } = progress.ledger.spent();
    const verifyPassed = progress.lastVerify?.passed ?? false;
    // A failed task keeps its worktree; the person who looks at it needs the place and the last failure.
    // The run's own record of it: a fleet task that moved has its worktree on the new worker.
    const made = run.worktreeIfMade ?? worktree;
    const failed = state === 'failed' && made ? { worktreePath: made.path } : {};
    const base = worktree ? { baseSha: worktree.baseSha } : {};
    const branch = worktree?.branch ?? taskBranch(workflowId);
    const preExisting = progress.baseline?.length ? { preExistingFailures: progress.lastVerify?.preExisting ?? progress.baseline } : {};
    const setup = progress.setup && setupDidSomething(progress.setup) ? { setup: describeSetup(progress.setup) } : progress.setupTail ? { setupTail: progress.setupTail } : {};
    return { taskId: input.taskId, state, branch, commit: progress.commit, turns, tokens, costUsd, verifyPassed, ...base, ...failed, ...endedFields(progress), ...preExisting, ...setup, ...extra };
  };
  const failWith = async (type: typeof FAILURE.TaskFailed | typeof FAILURE.TaskRejected, state: 'failed' | 'rejected', error: string): Promise<never> => {
    throw nonRetryable(type, error, [await finish(state, { error })]);
  };
  const rollback = (wt: Worktree) => {
    const sha = progress.commit ?? wt.baseSha;
    return acts.rollbackWorktree({ worktreePath: wt.path, sha }, `rollback · to ${sha.slice(0, 10)}`);
  };

  try {
    const start = await startTask(run);
    worktree = run.worktree;
    const outcome = input.finalize ? await runFinalize(run, input.finalize) : input.fixCi ? await runBranchPhase(run, { fixCi: input.fixCi }) : input.revise ? await runBranchPhase(run, { revise: input.revise }) : await runPhaseSequence(run, start);
    const unverifiedRejected = outcome.kind === 'verified' ? await passUnverified(run) : undefined;
    if (unverifiedRejected !== undefined) {
      await rollback(worktree);
      return await failWith(FAILURE.TaskRejected, 'rejected', `rejected at the unverified gate: ${unverifiedRejected}`);
    }
    if (outcome.kind === 'verified') {
      // A fleet task's branch stays on its worker: its end recorded on the forge is what a landing, a finalize or fix-ci run elsewhere starts from.
      if (input.repo && patched('fleet-records-its-end')) await recordState(run);
      const evidence = input.attempt ? { evidence: await attemptEvidence(input, progress, acts, worktree) } : {};
      await acts.removeWorktree({ repoPath: input.repoPath, repo: input.repo, worktreePath: worktree.path }, 'worktree · remove (the branch stays)');
      return await finish('completed', { summary: outcome.summary, verifyPassed: progress.lastVerify?.passed ?? true, ...evidence });
    }
    if (outcome.kind === 'rejected') {
      await rollback(worktree);
      return await failWith(FAILURE.TaskRejected, 'rejected', `rejected: ${outcome.reason}`);
    }
    // A failed run keeps its worktree as the agent left it, for a person to inspect.
    return await failWith(FAILURE.TaskFailed, 'failed', outcome.kind === 'failed' ? outcome.error : `the ${outcome.kind} step ended the task: ${outcome.reason}`);
  } catch (err) {
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(async () => {
        if (worktree) await rollback(worktree);
        // A cancelled attempt of a best-of-N task leaves no worktree behind; its branch stays until `dex clean`.
        if (worktree && input.attempt) await acts.removeWorktree({ repoPath: input.repoPath, repo: input.repo, worktreePath: worktree.path }, 'worktree · remove (attempt cancelled)');
        await finish('cancelled');
      });
      throw err;
    }
    if (err instanceof ApplicationFailure && (err.type === FAILURE.TaskFailed || err.type === FAILURE.TaskRejected)) throw err;
    return await failWith(FAILURE.TaskFailed, 'failed', innermostMessage(err));
  }
}
