import { sleep } from '@temporalio/workflow';
import { taskStateRef } from '../../core/run/ids';
import type { RoadmapTask } from '../../core/roadmap/roadmap';
import type { TaskResult } from '../../core/task/task-types';
import { remoteActivities } from './activities';
import { finalizeTask } from './finalize-child';
import type { Landing, LandingContext } from './landing-types';
import { forgeCa, onForgeRepository } from './pr/forge';

/** Pushes refused because the remote moved that are tried again, after 2, 4 and 8 s; then the `merge` gate. */
const PUSH_RETRIES = 3;

/**
 * Lands a task on `land.remote`'s branch (docs/roadmaps.md#landing-on-a-remote): fetch it;
 * finalize the task's branch onto its head when the branch lacks it; push the landing commit.
 * When the remote moved meanwhile (the push is refused), wait durably 2/4/8 s, then fetch,
 * finalize and push again; after that, or when finalize fails, wait at the `merge` gate.
 */
export async function landOnRemote(ctx: LandingContext, task: RoadmapTask, result: TaskResult): Promise<Landing> {
  const { input, control } = ctx;
  const remote = input.land!.remote!;
  const branch = input.land!.branch ?? input.baseBranch;
  const target = `${remote}/${branch}`;
  const acts = remoteActivities(input.taskDefaults.hostQueue);
  let round = 0;
  let moved = 0;
  for (;;) {
    const at = { repoPath: input.repoPath, remote, branch, taskBranch: result.branch, key: ctx.key };
    const fetched = await acts.fetchRemoteHead(at, `land ${task.id} · fetch ${target}`);
    if (fetched.landed) return { landed: true, sha: fetched.landed };
    let reason: string | undefined;
    if (!fetched.contained) {
      const finalized = await finalizeTask(ctx, task, fetched.head, target, ++round);
      if (!finalized.ok) reason = finalized.reason;
    }
    if (!reason) {
      const push = { ...at, remoteHead: fetched.head, baseBranch: input.baseBranch, roadmapFile: input.roadmapFile, taskId: task.id, title: task.title };
      const pushed = await acts.pushLanding(push, `land ${task.id} · push to ${target}`);
      if (pushed.status === 'pushed') return { landed: true, sha: pushed.sha };
      if (pushed.status === 'moved' && moved < PUSH_RETRIES) {
        // Durable: a worker restart during the wait resumes it, and nobody pushes in a tight loop.
        await sleep(2000 * 2 ** moved++);
        continue;
      }
      reason = pushed.status === 'moved' ? `${target} moved during ${moved + 1} pushes in a row` : pushed.reason;
    }
    const decision = await control.waitAt('merge', {}, { taskId: task.id, reason });
    if (decision.action === 'reject') return { landed: false, reason: `not landed: ${reason}` };
    moved = 0;
  }
}

/** Pushes of the tick refused because the base moved that are tried again, 2, 4 and 8 s apart. */
const TICK_RETRIES = 3;

/**
 * After a pull request merged: ticks the task's box on the base with a commit of its own on top of
 * the merge (`dex: land <task>`, the landing key as its `Dex-Merge` trailer, so a retry finds it
 * instead of ticking twice), pushed without force, as a push-mode landing does
 * (docs/landing-through-prs.md#what-happens-to-a-finished-task); the owner's checkout fast-forwards to it, so the
 * tasks that depend on this one start from the merged base. Returns the commit the base holds;
 * a base that refuses the push (a protected branch) keeps the merge, with the box unticked there.
 */
export async function tickMerged(ctx: LandingContext, task: RoadmapTask, merged: string): Promise<string> {
  const { input } = ctx;
  // A run with no roadmap file (an issue's) has no box to tick: the merge is the landing.
  if (input.plan) return merged;
  const remote = input.land!.remote!;
  const branch = input.land!.branch ?? input.baseBranch;
  const acts = remoteActivities(input.taskDefaults.hostQueue);
  for (let moved = 0; ; moved++) {
    const at = { repoPath: input.repoPath, remote, branch, taskBranch: merged, key: ctx.key, ...forgeCa(input.land!.pr), ...onForgeRepository(input) };
    const fetched = await acts.fetchRemoteHead(at, `land ${task.id} · fetch ${remote}/${branch}`);
    if (fetched.landed) return fetched.landed;
    const push = { ...at, remoteHead: fetched.head, baseBranch: input.baseBranch, roadmapFile: input.roadmapFile, taskId: task.id, title: task.title };
    const pushed = await acts.pushLanding(push, `land ${task.id} · tick the box on ${remote}/${branch}`);
    if (pushed.status === 'pushed') return pushed.sha;
    if (pushed.status === 'moved' && moved < TICK_RETRIES) {
      await sleep(2000 * 2 ** moved);
      continue;
    }
    ctx.step?.(`${task.id} merged, but its box is not ticked on ${remote}/${branch}: ${pushed.status === 'moved' ? 'the branch kept moving' : pushed.reason}`);
    return merged;
  }
}

/**
 * A fleet task that landed needs its recorded worktree no more: its hidden ref goes from the forge
 * (docs/fleet.md#nothing-lost). Nothing for a task on a checkout, which records none.
 */
export async function forgetRecordedState(ctx: LandingContext, taskId: string): Promise<void> {
  const { repo } = onForgeRepository(ctx.input);
  if (!repo) return;
  const ref = taskStateRef(ctx.workflowId);
  await remoteActivities(ctx.input.taskDefaults.hostQueue).removeWorktreeState({ repo, ref }, `land ${taskId} · remove ${ref}`);
}
