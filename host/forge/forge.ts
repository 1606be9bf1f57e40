// What dex needs of a forge to land through pull requests (docs/landing-through-prs.md): a pull
// request found or opened by its head branch, the check runs of a commit and the checks its base
// requires, a re-run, a log, a merge pinned to the head dex tested, and the branch's deletion.
// GitHub implements it (github-forge.ts); GitLab's merge requests and pipelines fit the same shape.
//
// Errors: a forge raises ApplicationFailures of the Forge* types (core/run/failure-types.ts): a
// token missing or refused and a repository not found never retry; the forge down, a timeout and
// rate limits do. A merge the forge refuses is an outcome (MergeOutcome), not an error.

import type { ForgeTarget, MergeOutcome, PullRequestLanding, PullRequestRef } from '../../core/roadmap/pull-request-types';
import type { LogTail } from './log-tail';

/** A pull request as the forge has it now. */
export interface ForgePullRequest extends PullRequestRef {
  state: 'open' | 'closed';
  merged: boolean;
  /** The merge commit (or squash/rebase result) once merged. */
  mergeSha?: string;
  /** `false` when its head conflicts with its base; `undefined` while the forge has not worked it out. */
  mergeable?: boolean;
}

/** One run of one check on a commit. */
export interface ForgeCheckRun {
  /** The forge's id of this run: what a re-run and a log read name. */
  id: string;
  name: string;
  headSha: string;
  status: 'queued' | 'in_progress' | 'completed';
  /** Set once completed: success, neutral, skipped, failure, cancelled, timed_out, action_required, stale… */
  conclusion?: string;
  url?: string;
  /** The forge's own times of this run: an app that re-runs a check in place keeps its id and sets them anew. */
  startedAt?: string;
  completedAt?: string;
  /** `false` for what cannot be re-run through the forge (a commit status: the CI that set it decides). */
  rerunnable?: false;
}

export interface MergeRequest {
  number: number;
  /** The head commit dex tested: the forge refuses the merge when the branch has moved since. */
  sha: string;
  method: PullRequestLanding['mergeMethod'];
  title: string;
}

export interface Forge {
  /** The open pull request of `head` into `base`, if there is one. */
  findOpenPullRequest(head: string, base: string): Promise<PullRequestRef | undefined>;
  /** Opens a pull request of `head` into `base` (the caller looked for an open one first). */
  createPullRequest(input: { head: string; base: string; title: string; body: string }): Promise<PullRequestRef>;
  getPullRequest(number: number): Promise<ForgePullRequest>;
  /** The latest run of each check reported on `sha`. */
  listCheckRuns(sha: string): Promise<ForgeCheckRun[]>;
  /** The checks `branch` requires before a merge; none when it is not protected. */
  requiredChecks(branch: string): Promise<string[]>;
  /** Runs the check again on the same commit: a new run (a new id), or, as some apps do, the same run again with new times. */
  rerunCheck(id: string): Promise<void>;
  /** The last `maxBytes` of one check run's log, read to its end without holding the whole of it. */
  readCheckLog(id: string, maxBytes: number): Promise<LogTail>;
  /** Merges pinned to `sha`; an already merged pull request reports `merged`. */
  merge(input: MergeRequest): Promise<MergeOutcome>;
  /** Deletes `branch` on the forge; one already gone is fine. */
  deleteBranch(branch: string): Promise<void>;
}

/** The forge of `target`, its token read from this worker's environment (github-forge.ts for GitHub). */
export type ForgeFactory = (target: ForgeTarget) => Promise<Forge>;
