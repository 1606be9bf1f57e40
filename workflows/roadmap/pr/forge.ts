import type { ActivityOptions } from '@temporalio/common';
import { proxyActivities } from '@temporalio/workflow';
import type { CiChanged, ForgeActivities, ForgeTarget, PullRequestLanding } from '../../../core/roadmap/pull-request-types';
import { summarized } from '../../run/summarized';

/**
 * Forge calls are short HTTP requests: a dead worker's call is simply made again (each is
 * idempotent, core/roadmap/pull-request-types.ts), a forge that answers 5xx or not at all is tried
 * again for a few minutes, and what retrying cannot fix (a missing token) fails at once.
 */
export const forgePolicy: ActivityOptions = {
  startToCloseTimeout: '2m',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 10 },
};

/** The forge activities of a landing through pull requests, on the host that holds the repository. */
export function forgeActivities(hostQueue: string) {
  const { openPullRequest, readChecks, rerunCheck, readCheckLog, mergePullRequest, deletePullBranch } = proxyActivities<ForgeActivities>({ ...forgePolicy, taskQueue: hostQueue });
  return summarized({ openPullRequest, readChecks, rerunCheck, readCheckLog, mergePullRequest, deletePullBranch });
}

export type Forge = ReturnType<typeof forgeActivities>;

/** Where the forge activities act: the landing's forge settings, without the rest of `land.pr`. */
export const forgeTarget = (pr: PullRequestLanding): ForgeTarget => ({
  forge: pr.forge,
  ...(pr.apiUrl ? { apiUrl: pr.apiUrl } : {}),
  tokenEnv: pr.tokenEnv,
  owner: pr.owner,
  repo: pr.repo,
});

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
