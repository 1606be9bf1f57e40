import { workflowInfo } from '@temporalio/workflow';
import { setupReportId, taskBranch, taskStateRef, taskWorktreeName } from '../../../core/run/ids';
import type { TaskInput } from '../../../core/task/task-types';
import { FleetPlacement, hostPlacement, type Placement } from '../../run/placement';
import type { HostActivities } from '../activities';
import type { TaskProgress } from '../progress';
import type { TaskRun } from '../task-run';

/**
 * Where a task's activities run (docs/fleet.md#where-a-task-runs): a task on a forge repository
 * takes a slot on a worker of the fleet and moves when that worker is lost; any other stays on
 * the queue of the host that holds its checkout.
 */
export function placeTask(input: TaskInput, progress: TaskProgress, run: () => TaskRun, on: (placement: Placement) => HostActivities): Placement {
  if (!input.repo || !input.fleetQueue) return hostPlacement(input.hostQueue);
  const placement: FleetPlacement = new FleetPlacement(
    input.fleetQueue,
    (queue) => takeUpOnWorker(run(), on(hostPlacement(queue, true))),
    () => {
      const move = placement.moves.at(-1);
      if (move && progress.moves.length < placement.moves.length) progress.ledger.step(`fleet · moved from ${move.from} to ${move.to}: ${move.why}`);
      else progress.ledger.step(`fleet · on worker ${placement.worker?.name}`);
      progress.worker = placement.worker?.name;
      progress.moves = [...placement.moves];
    },
  );
  return placement;
}

/**
 * A task taken up on a new worker after its last one was lost (docs/fleet.md#what-a-lost-worker-costs):
 * its worktree made again from this worker's mirror, at the state last recorded on the forge, and
 * set up again (from the dependency cache, when the fleet shares one). A task lost before it had
 * a worktree needs nothing: the call that makes it runs again here.
 */
async function takeUpOnWorker(run: TaskRun, acts: HostActivities): Promise<void> {
  const { input, progress } = run;
  const made = run.worktreeIfMade;
  if (!made) return;
  const { workflowId } = workflowInfo();
  const recorded = progress.recorded;
  const start = recorded ? { sha: recorded.head, baseSha: made.baseSha, state: recorded.sha } : { sha: progress.commit ?? made.baseSha, baseSha: made.baseSha };
  const worktree = { repoPath: input.repoPath, repo: input.repo, branch: taskBranch(workflowId), worktreeName: taskWorktreeName(workflowId), start };
  run.worktree = await acts.prepareWorktree(worktree, `fleet · worktree again at ${(recorded?.sha ?? start.sha).slice(0, 10)}`);
  if (input.setup === false) return;
  const setup = { worktreePath: run.worktree.path, repoPath: input.repoPath, repo: input.repo, setup: input.setup, sandbox: input.sandbox, artifactId: setupReportId(workflowId) };
  progress.setup = await acts.setupWorktree(setup, 'fleet · setup again');
}

/**
 * Records a fleet task's worktree on the forge's hidden ref (docs/fleet.md#nothing-lost) when it
 * changed since the last record: after a turn that changed files, and after a checkpoint.
 * `fingerprint` is the worktree's after a turn; a checkpoint passes none and always records.
 */
export async function recordState(run: TaskRun, fingerprint?: string): Promise<void> {
  const { input, progress, acts } = run;
  if (!input.repo || !run.worktreeIfMade) return;
  if (fingerprint !== undefined && fingerprint === progress.recorded?.fingerprint) return;
  const ref = taskStateRef(workflowInfo().workflowId);
  const state = await acts.recordWorktreeState({ worktreePath: run.worktree.path, repo: input.repo, ref }, `fleet · record the worktree on ${ref}`);
  progress.recorded = { ...state, ...(fingerprint !== undefined ? { fingerprint } : {}) };
}
