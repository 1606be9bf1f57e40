import { proxyActivities } from '@temporalio/workflow';
import type { CiChanged, ForgeActivities, ForgeTarget, PullRequestLanding } from '../../../core/roadmap/pull-request-types';
import type { ForgeRepository } from '../../../core/fleet/repo-locator';
import type { createIssueCommentActivities } from '../../../activities/roadmap/issue-comment';

type IssueCommentActivities = ReturnType<typeof createIssueCommentActivities>;
import type { RoadmapInput } from '../../../core/roadmap/roadmap-types';
import { forgePolicy } from '../../run/policies';
import { summarized } from '../../run/summarized';

/** The forge activities of a landing through pull requests, on the host that holds the repository. */
export function forgeActivities(hostQueue: string) {
  const { openPullRequest, readChecks, rerunCheck, readCheckLog, mergePullRequest, deletePullBranch, readReview, replyInThread, setDexStatus } = proxyActivities<ForgeActivities>({ ...forgePolicy, taskQueue: hostQueue });
  return summarized({ openPullRequest, readChecks, rerunCheck, readCheckLog, mergePullRequest, deletePullBranch, readReview, replyInThread, setDexStatus });
}

export type Forge = ReturnType<typeof forgeActivities>;

/** dex's one comment on an issue or pull request (docs/forge-triggers.md#the-state-comment), on the host that holds the repository. */
export function issueCommentActivities(hostQueue: string) {
  const { commentOnIssue } = proxyActivities<IssueCommentActivities>({ ...forgePolicy, taskQueue: hostQueue });
  return summarized({ commentOnIssue });
}

/** Where the forge activities act: the landing's forge settings, without the rest of `land.pr`. */
export const forgeTarget = (pr: PullRequestLanding): ForgeTarget => ({
  forge: pr.forge,
  ...(pr.apiUrl ? { apiUrl: pr.apiUrl } : {}),
  tokenEnv: pr.tokenEnv,
  ...forgeCa(pr),
  owner: pr.owner,
  repo: pr.repo,
});

/**
 * The forge's CA (`land.pr.caFile`) for an activity that reaches the forge, its git activities
 * included: nothing without one, so the inputs of landings that have none stay as they were.
 */
export const forgeCa = (pr: PullRequestLanding | undefined): { caFile?: string } => (pr?.caFile ? { caFile: pr.caFile } : {});

/**
 * A roadmap on a forge repository (docs/fleet.md#a-roadmap-on-a-forge-repository): its landings' git
 * runs in a fleet worker's mirror of it, not in a checkout; nothing for any other, so their inputs stay as they were.
 */
export const onForgeRepository = (input: RoadmapInput): { repo?: ForgeRepository } => (input.taskDefaults.repo ? { repo: input.taskDefaults.repo } : {});

/** One wait for CI: on which repository, branch and commit, and whether a `ciChanged` signal woke it. */
interface CiWatch {
  target: ForgeTarget;
  branch: string;
  sha: string;
  woken: boolean;
}

/**
 * The roadmap's waits for CI, woken by the `ciChanged` signal (`dex webhook`): a signal for the
 * repository and a waited branch or commit wakes that wait at once; any other is ignored.
 */
export class CiWake {
  private readonly watches = new Set<CiWatch>();

  /** Starts watching `branch` at `sha`; `woken` turns true when a signal names either. */
  watch(target: ForgeTarget, branch: string, sha: string): CiWatch & { close(): void } {
    const w: CiWatch = { target, branch, sha, woken: false };
    this.watches.add(w);
    return Object.assign(w, { close: () => void this.watches.delete(w) });
  }

  notify(change: CiChanged): void {
    const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
    for (const w of this.watches) {
      if (!same(w.target.owner, change.owner) || !same(w.target.repo, change.repo)) continue;
      if (change.branch === w.branch || change.sha === w.sha) w.woken = true;
    }
  }
}
