import type { RoadmapTask } from '../../core/roadmap';
import type { RoadmapInput } from '../../core/roadmap-types';
import type { TaskResult } from '../../core/task-types';
import type { RunControl } from '../run/run-control';
import type { RoadmapActivities } from './activities';

/** How landing a task ended: its landing commit, or why it was not landed. */
export type Landing = { landed: true; sha: string } | { landed: false; reason: string };

/**
 * Lands a finished task's branch on the base branch (the box ticked in the same commit); a
 * conflict or a blocked checkout waits at the `merge` gate: approve tries again (a person fixed
 * it), reject leaves the task not landed.
 */
export async function landTask(
  input: RoadmapInput,
  acts: RoadmapActivities,
  control: RunControl,
  task: RoadmapTask,
  result: TaskResult,
  key: string,
): Promise<Landing> {
  for (;;) {
    const merged = await acts.mergeTaskBranch({
      repoPath: input.repoPath,
      baseBranch: input.baseBranch,
      branch: result.branch,
      roadmapFile: input.roadmapFile,
      taskId: task.id,
      title: task.title,
      key,
    }, `land ${task.id} on ${input.baseBranch}`);
    if (merged.status === 'merged') return { landed: true, sha: merged.sha };
    const reason = merged.status === 'conflict' ? `merge conflict in ${merged.files.join(', ')}` : merged.reason;
    const decision = await control.waitAt('merge', {}, { taskId: task.id, reason });
    if (decision.action === 'reject') return { landed: false, reason: `not landed: ${reason}` };
  }
}
