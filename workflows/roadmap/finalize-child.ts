import { condition, ParentClosePolicy, patched, startChild, workflowInfo } from '@temporalio/workflow';
import { DEFAULT_FINALIZE_ATTEMPTS } from '../../core/task/phases';
import type { RoadmapTask } from '../../core/roadmap/roadmap';
import type { RoadmapInput } from '../../core/roadmap/roadmap-types';
import type { TaskInput, TaskResult } from '../../core/task/task-types';
import { addUsage, addUsd, ZERO_USAGE } from '../../core/run/usage';
import type { taskWorkflow } from '../task/workflow';
import type { RoadmapBoard } from './board';
import { classifyChildFailure } from '../run/child-end';
import type { RunGrants } from './run-grants';
import { SHORT_WORKFLOW_TASK_TIMEOUT } from '../../core/run/definitions';
import { SUMMARY_BYTES, clipText } from '../../core/limits/server-limits';

/** What finalizing a task needs from its roadmap. */
export interface FinalizeContext {
  input: RoadmapInput;
  board: RoadmapBoard;
  /** The task's workflow id: a finalize run reuses it, so gates, signals and grants reach it as they reached the task. */
  workflowId: string;
  /** The run budget's grants: a finalize run holds one fixed grant for its whole run (the roadmap waits for it). */
  grants: RunGrants;
  /**
   * Set when landings run side by side (land.mode: pr): such runs go one at a time, since each
   * holds all that is left of the run budget while it runs.
   */
  oneAtATime?: { busy: boolean };
}

/** How a finalize run ended: the branch now holds the target, verified, or why not. */
export type Finalized = { ok: true; result: TaskResult } | { ok: false; reason: string };

/**
 * Runs a finalize run of `task` (docs/roadmaps.md#finalize): a child `taskWorkflow`, under the
 * task's own (closed) workflow id, that merges `target` into the task's branch in a worktree,
 * resolves and verifies, and commits the merge on the branch. Its spending is added to the task's.
 */
export async function finalizeTask(ctx: FinalizeContext, task: RoadmapTask, target: string, targetName: string, round: number): Promise<Finalized> {
  const finalize = { target, targetName, round, maxAttempts: ctx.input.land?.finalizeAttempts ?? DEFAULT_FINALIZE_ATTEMPTS };
  return runOnTaskBranch(ctx, task, { phases: ['finalize'], finalize }, `finalize-${round}`, `finalize onto ${targetName}`);
}

/**
 * Runs one more run of `task` on its existing branch (a finalize run, or a fix-CI run of a landing
 * through a pull request): a child `taskWorkflow` under the task's own (closed) workflow id, so
 * gates, signals and grants reach it as they reached the task; it holds what is left of the run
 * budget until it ends, and its spending is added to the task's.
 */
export async function runOnTaskBranch(
  ctx: FinalizeContext,
  task: RoadmapTask,
  run: Pick<TaskInput, 'phases' | 'finalize' | 'fixCi' | 'revise'>,
  grantName: string,
  what: string,
): Promise<Finalized> {
  const { oneAtATime } = ctx;
  if (oneAtATime) {
    while (oneAtATime.busy) await condition(() => !oneAtATime.busy);
    oneAtATime.busy = true;
  }
  try {
    return await runHolding(ctx, task, run, grantName, what);
  } finally {
    if (oneAtATime) oneAtATime.busy = false;
  }
}

/** {@link runOnTaskBranch}'s run, once it may start. */
async function runHolding(ctx: FinalizeContext, task: RoadmapTask, run: Pick<TaskInput, 'phases' | 'finalize' | 'fixCi' | 'revise'>, grantName: string, what: string): Promise<Finalized> {
  const { input, board, grants } = ctx;
  // The roadmap waits for this run, so it cannot answer grant requests meanwhile: the run gets
  // what is left of the run budget as its own budget, reserved until it ends.
  const grantKey = `${task.id}/${grantName}`;
  const runLeft = grants.holdRest(grantKey);
  const usd = [input.taskBudget?.usd, runLeft].filter((v): v is number => v !== undefined);
  const budget = usd.length || input.taskBudget?.tokens ? { ...input.taskBudget, ...(usd.length ? { usd: Math.min(...usd) } : {}) } : undefined;
  const taskInput: TaskInput = {
    ...input.taskDefaults,
    taskId: task.id,
    title: task.title,
    description: task.description,
    budget,
    ...run,
  };
  const before = { tokens: board.get(task.id).tokens, costUsd: board.get(task.id).costUsd };
  // While it runs, its reports add to the task's spending instead of standing for it; runs recorded before replay as they were.
  if (patched('finalize-spending-adds')) board.finalizeAdds = true;
  let ended: Finalized;
  let result: TaskResult | undefined;
  try {
    const handle = await startChild<typeof taskWorkflow>('taskWorkflow', {
      workflowTaskTimeout: SHORT_WORKFLOW_TASK_TIMEOUT,
      workflowId: ctx.workflowId,
      staticSummary: clipText(`${task.id}: ${what}`, SUMMARY_BYTES),
      args: [taskInput],
      taskQueue: workflowInfo().taskQueue,
      parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
    });
    result = await handle.result();
    ended = { ok: true, result };
  } catch (err) {
    const end = classifyChildFailure(task.id, err);
    result = 'failure' in end ? end.failure.result : undefined;
    ended = { ok: false, reason: 'failure' in end ? end.failure.message : `${what} failed` };
  }
  grants.settle(grantKey, result?.costUsd ?? runLeft ?? 0);
  board.ended(task.id, { tokens: addUsage(before.tokens, result?.tokens ?? ZERO_USAGE), costUsd: addUsd(before.costUsd, result?.costUsd ?? 0) });
  return ended;
}
