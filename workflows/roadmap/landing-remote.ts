import { sleep } from '@temporalio/workflow';
import type { RoadmapTask } from '../../core/roadmap/roadmap';
import type { TaskResult } from '../../core/task/task-types';
import { remoteActivities } from './activities';
import { finalizeTask } from './finalize-child';
import type { Landing, LandingContext } from './landing-types';

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
