/**
 * Landing through pull requests (`land.mode: pr`, docs/landing-through-prs.md): what the client
 * decides before a run starts, and what the forge activities take and return. Plain data: it
 * crosses workflow history as JSON. The forge token is never here: the worker reads it from its
 * own environment (`tokenEnv`) when a forge activity runs.
 */

import type { Review } from '../forge/review';
import type { DexStatus } from '../forge/dex-status';

/** `land.pr:` of dex.config.yaml, checked by the client (client/config/land-config.ts). */
export interface PullRequestLanding {
  /** Only GitHub today; the forge sits behind host/forge/forge.ts so GitLab can follow. */
  forge: 'github';
  /** The forge's API root. @default https://api.github.com (tests point it at their fake forge) */
  apiUrl?: string;
  /** The environment variable on the worker that holds the forge token. @default GITHUB_TOKEN */
  tokenEnv: string;
  /** The absolute path of the forge's CA certificate (PEM), trusted with the machine's for the API and dex's git to the forge. @default none: Node's and git's own trust */
  caFile?: string;
  /** The repository on the forge, read by the client from the remote's URL. */
  owner: string;
  repo: string;
  /** `auto`: merge once the checks are green; `review`: once green, wait at the `merge` gate for a person. @default auto */
  profile: 'auto' | 'review';
  /** The checks to wait for; absent: the base branch's required checks, else every check reported on the head. */
  checks?: string[];
  /** Fix-CI phases before the task waits at a gate with the failing checks named. @default 2 */
  fixAttempts: number;
  /** How long one wait for CI may last before the task waits at a gate. @default 1440 (a day) */
  ciTimeoutMinutes: number;
  /** @default merge */
  mergeMethod: 'merge' | 'squash' | 'rebase';
  /**
   * Set for `@dex <request>` on a pull request a person opened (docs/forge-triggers.md#asking-on-a-pull-request):
   * the task's commits go onto that pull request's branch, no pull request of dex's is opened, and the person's branch is never deleted.
   */
  onto?: { number: number; head: string; base: string };
}

/** Where every forge activity acts: the landing's forge settings (no token). */
export interface ForgeTarget {
  forge: PullRequestLanding['forge'];
  apiUrl?: string;
  tokenEnv: string;
  /** Read by the worker each time (host/forge/forge-ca.ts): the path travels, never the certificate. */
  caFile?: string;
  owner: string;
  repo: string;
}

/** An open (or just merged) pull request. */
export interface PullRequestRef {
  number: number;
  /** The page a person opens. */
  url: string;
  /** The branch it proposes (`dex/<taskId>`) and the one it targets. */
  head: string;
  base: string;
  /** The commit the forge sees at its head now. */
  headSha: string;
}

export type CheckState = 'pending' | 'passed' | 'failed';

/** One check on the pull request's head commit. */
export interface CheckStatus {
  name: string;
  state: CheckState;
  /** The forge's id of this run of the check: what a re-run and a log read name. */
  id: string;
  url?: string;
  /** The forge's own times of this run (ISO 8601): a run re-run in place keeps its id, its times are new. Absent in histories recorded before. */
  startedAt?: string;
  completedAt?: string;
  /** `false` for what dex cannot re-run (a commit status): its failure counts at once. Absent: it can be. */
  rerunnable?: false;
}

/** The checks a landing waits for, on one head commit. */
export interface ChecksReport {
  sha: string;
  checks: CheckStatus[];
  /** Checks waited for (configured or required) that the forge has not reported yet: pending. */
  missing: string[];
}

/** How a merge attempt ended. `base-moved`: GitHub's 405 "Base branch was modified" or a head behind a strict base. */
export type MergeOutcome =
  | { status: 'merged'; sha: string }
  | { status: 'base-moved'; reason: string }
  | { status: 'conflict'; reason: string }
  | { status: 'refused'; reason: string };

/** A failed check's log, bounded and redacted, kept in the store: the fix-CI phase reads it by reference. */
export interface CheckLog {
  name: string;
  /** Store reference of the whole (bounded) log. */
  ref: string;
  /** Its last lines, for a person's view and the gate's reason. */
  excerpt: string;
}

/** What the webhook receiver (`dex webhook`) signals a run with: something changed on this branch or commit. */
export interface CiChanged {
  owner: string;
  repo: string;
  branch?: string;
  sha?: string;
}

/**
 * The forge activities (activities/roadmap/landing-forge.ts, on the repository's host queue). Each
 * is idempotent: opening finds the open pull request of the head branch before it creates one; a
 * merge of an already merged pull request reports `merged`. A missing token, or one the forge
 * refuses (401/403), fails without retry and names the variable; 5xx and network errors retry.
 */
export interface ForgeActivities {
  openPullRequest(input: { target: ForgeTarget; head: string; base: string; title: string; descriptionPath: string }): Promise<PullRequestRef>;
  readChecks(input: { target: ForgeTarget; pr: number; sha: string; checks?: string[] }): Promise<ChecksReport>;
  rerunCheck(input: { target: ForgeTarget; checkId: string }): Promise<void>;
  readCheckLog(input: { target: ForgeTarget; check: CheckStatus; key: string }): Promise<CheckLog>;
  mergePullRequest(input: { target: ForgeTarget; pr: number; sha: string; method: PullRequestLanding['mergeMethod']; title: string }): Promise<MergeOutcome>;
  deletePullBranch(input: { target: ForgeTarget; branch: string }): Promise<void>;
  /** Sets the `dex` commit status of `sha`, the pull request's head (docs/forge-triggers.md#dex-on-the-pull-request). */
  setDexStatus(input: { target: ForgeTarget; sha: string; status: DexStatus }): Promise<void>;
  /** A review of the pull request and its comments, each with its thread (docs/forge-triggers.md#reviews-answered-on-the-same-pr). */
  readReview(input: { target: ForgeTarget; pr: number; reviewId: number }): Promise<Review>;
  /** Replies `body` in review thread `thread` (0: on the pull request itself), once: a reply holding `marker` is not posted again. */
  replyInThread(input: { target: ForgeTarget; pr: number; thread: number; body: string; marker: string }): Promise<{ url: string }>;
}
