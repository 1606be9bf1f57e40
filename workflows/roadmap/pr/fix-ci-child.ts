import type { RoadmapTask } from '../../../core/roadmap/roadmap';
import type { CheckStatus, ForgeTarget, PullRequestRef } from '../../../core/roadmap/pull-request-types';
import { runOnTaskBranch, type Finalized } from '../finalize-child';
import type { LandingContext } from '../landing-types';
import type { Forge } from './forge';

/**
 * A fix-CI run of `task` (docs/landing-through-prs.md#what-happens-to-a-finished-task): the failing checks' logs are
 * read into the store, then a child `taskWorkflow` on the task's branch, under its own workflow id,
 * runs one `fix-ci` phase told the checks and their logs' ends; it is verified and committed as any
 * phase. Its spending is added to the task's, as a finalize run's.
 */
export async function fixCi(
  ctx: LandingContext,
  task: RoadmapTask,
  forge: Forge,
  target: ForgeTarget,
  ref: PullRequestRef,
  sha: string,
  failed: CheckStatus[],
  round: number,
): Promise<Finalized> {
  const failures = [];
  for (const check of failed) {
    const log = await forge.readCheckLog({ target, check, key: `${ctx.key}/ci/${sha}/${check.name}` }, `CI · read the log of ${check.name}`);
    failures.push({ name: check.name, excerpt: log.excerpt, ref: log.ref, ...(check.url ? { url: check.url } : {}) });
  }
  const fixCiRequest = { pullRequest: `PR #${ref.number} (${ref.url})`, sha, failures, round };
  return runOnTaskBranch(ctx, task, { phases: ['fix-ci'], fixCi: fixCiRequest }, `fix-ci-${round}`, `fix CI of PR #${ref.number}`);
}
