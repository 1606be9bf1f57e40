import type { RoadmapTask } from '../../core/roadmap/roadmap';
import type { TaskResult } from '../../core/task/task-types';
import { finalizeTask } from './finalize-child';
import { proposeOnRemote } from './landing-branch';
import { landOnRemote } from './landing-remote';
import type { Landing, LandingContext } from './landing-types';
import { landThroughPullRequest } from './pr/landing-pr';

/**
 * Lands a finished task's branch on the base branch, its box ticked in the same commit
 * (docs/roadmaps.md#how-a-run-goes). A branch behind the base is finalized first (the base merged into
 * it in a worktree, conflicts resolved by the model, verify run on the merged tree), so what
 * lands is what verify passed on. A finalize that fails, a conflict or a blocked checkout waits
 * at the `merge` gate: approve tries again (a person fixed it), reject leaves the task not landed.
 */
export async function landTask(ctx: LandingContext, task: RoadmapTask, result: TaskResult): Promise<Landing> {
  const { input, acts, control } = ctx;
  if (input.land?.remote && (input.land.mode ?? 'push') === 'push') return landOnRemote(ctx, task, result);
  if (input.land?.remote && input.land.mode === 'branch') return proposeOnRemote(ctx, task, result);
  if (input.land?.remote && input.land.mode === 'pr' && input.land.pr) return landThroughPullRequest(ctx, task, result);
  let round = 0;
  for (;;) {
    const merged = await acts.mergeTaskBranch({
      repoPath: input.repoPath,
      baseBranch: input.baseBranch,
      branch: result.branch,
      roadmapFile: input.roadmapFile,
      taskId: task.id,
      title: task.title,
      key: ctx.key,
      finalize: true,
    }, `land ${task.id} on ${input.baseBranch}`);
    if (merged.status === 'merged') return { landed: true, sha: merged.sha };
    let reason: string;
    if (merged.status === 'behind') {
      const finalized = await finalizeTask(ctx, task, merged.baseSha, input.baseBranch, ++round);
      if (finalized.ok) continue; // the branch now holds the base, verified: land it
      reason = finalized.reason;
    } else reason = merged.status === 'conflict' ? `merge conflict in ${merged.files.join(', ')}` : merged.reason;
    const decision = await control.waitAt('merge', {}, { taskId: task.id, reason });
    if (decision.action === 'reject') return { landed: false, reason: `not landed: ${reason}` };
  }
}
