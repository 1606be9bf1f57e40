import type { Client } from '@temporalio/client';
import { InvalidInput } from '../../core/run/invalid-input';
import type { TaskInput, Worktree } from '../../core/task/task-types';
import { PLAN_KINDS } from '../plan-kinds';
import { RunHistory } from '../run-history';
import { findRun } from '../run-lookup';
import type { Settings } from '../settings';

/** What `dex retry` was asked for. */
interface RetryRequest {
  id: string;
  from: string;
  note?: string;
}

/**
 * The input of a task run that takes up the ended task run `req.id` at phase `req.from`
 * (core/task/rewind.ts): the earlier run's input, on this command's queue, with where to rewind to.
 * Throws InvalidInput (exit 2, nothing started) for a run that is not an ended task, a phase it
 * does not have, or a run that never made its branch.
 */
export async function buildRetryInput(client: Client, req: RetryRequest, settings: Settings): Promise<TaskInput> {
  const run = await findRun(client, req.id);
  if (run.type !== PLAN_KINDS.task.workflowType) throw new InvalidInput(`${req.id} is not a task run (it is a ${run.type}): dex retry takes a task`);
  if (run.running) throw new InvalidInput(`${req.id} is still running: cancel it first (dex cancel ${req.id})`);
  const history = await RunHistory.of(run.handle);
  const earlier = history.input<TaskInput>();
  if (!earlier) throw new InvalidInput(`${req.id}: its input is not in its history`);
  const phases = earlier.phases?.length ? earlier.phases : ['implement'];
  if (!phases.includes(req.from)) throw new InvalidInput(`${req.id} has no phase "${req.from}": its phases are ${phases.join(', ')}`);
  const worktree = history.activityResult<Worktree>('prepareWorktree');
  if (!worktree) throw new InvalidInput(`${req.id} never made its branch: start the task again instead`);
  // A run of its own: not a roadmap's child any more, nor a finalize run.
  const { runBudgeted: _grants, finalize: _finalize, rewind: _earlierRewind, ...own } = earlier;
  return {
    ...own,
    hostQueue: settings.hostQueue,
    rewind: { fromWorkflowId: req.id, fromPhase: req.from, baseSha: worktree.baseSha, ...(req.note ? { note: req.note } : {}) },
  };
}
