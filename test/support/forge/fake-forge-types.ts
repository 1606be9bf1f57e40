import type { FakeIssues } from './fake-forge-issues';
import type { FakeReviews } from './fake-forge-reviews';
// The fake forge's shapes (test/support/forge/fake-forge.ts): what a test configures and reads,
// and the pull requests it keeps; apart so the server and its API routes share them without a circle.
import type { FakeCheck, FakeCi } from './fake-forge-ci';
import type { RefUpdate } from './fake-forge-git';

/** A pull request as the fake keeps it. */
export interface PullRecord {
  number: number;
  head: string;
  base: string;
  title: string;
  body: string;
  state: 'open' | 'closed';
  merged: boolean;
  mergeSha: string | null;
  mergedAt: string | null;
  createdAt: string;
  /** The head's commit when last seen (kept once the branch is deleted). */
  headSha: string;
  /** The base and head commits whose mergeability GitHub has worked out (`base:head`). */
  mergeabilityOf?: string;
}

export interface FakeForgeOptions {
  /** The token the API takes (`Authorization: token …` or `Bearer …`); anything else is 401. */
  token: string;
  owner?: string;
  repo?: string;
  /** The default branch; the bare repository starts with one commit on it unless `seed` is false. */
  base?: string;
  seed?: boolean;
  checks?: FakeCheck[];
  /**
   * The base branch's protection: classic branch protection, or a ruleset when `ruleset` (GitHub
   * serves it at /rules/branches/{branch}). @default { requiredChecks: every check's name, strict: true }
   */
  protection?: FakeProtection | null;
  /** Git pushes need Basic auth with the token as password (as GitHub over HTTPS). @default false */
  gitAuth?: boolean;
}

export interface FakeProtection {
  requiredChecks: string[];
  /** The head must contain the base's tip to merge ("require branches to be up to date"). */
  strict: boolean;
  ruleset?: boolean;
}

export interface FakeStatus {
  id: number;
  sha: string;
  context: string;
  state: 'pending' | 'success' | 'failure' | 'error';
  description: string | null;
  createdAt: string;
}

/** One request as the fake received it, for tests that look for what should never be sent. */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface FakeForge {
  /** http://127.0.0.1:PORT/api/v3: the ForgeTarget's apiUrl. */
  apiUrl: string;
  /** https://127.0.0.1:PORT/api/v3: the same API over HTTPS, with `caFile`'s certificate (a forge behind its own CA). */
  secureApiUrl: string;
  /** https://127.0.0.1:PORT/OWNER/REPO.git: the remote dex pushes to (after `trustIn` of the repository). */
  remoteUrl: string;
  /** http://127.0.0.1:PORT/OWNER/REPO.git: the same repository over plain HTTP, for a test's own git. */
  httpRemoteUrl: string;
  /** The certificate `remoteUrl` and `secureApiUrl` are served with (PEM). */
  caFile: string;
  /** Makes git in `repoPath` trust the fake's certificate for `remoteUrl` (`http.<url>.sslCAInfo` in its config). */
  trustIn(repoPath: string): Promise<void>;
  /** The bare repository on disk. */
  bare: string;
  owner: string;
  repo: string;
  base: string;
  ci: FakeCi;
  /** Every pull request, by number (from 1). */
  pulls: PullRecord[];
  /** Issues (numbered from 101) and their comments (fake-forge-issues.ts). */
  issues: FakeIssues;
  /** Pull-request reviews (from 5_000_001), their line comments (from 6_000_001) and replies in their threads (fake-forge-reviews.ts). */
  reviews: FakeReviews;
  /** Every request, API and git, bodies as text. */
  requests: RecordedRequest[];
  /** Pull requests created through the API. */
  pullsCreated(): number;
  /** How many pushes asked to set a ref to `sha` (a push of a commit already there sends none). */
  pushesOf(sha: string): number;
  /** Every ref update pushes asked for, in order. */
  pushes: RefUpdate[];
  protection: FakeProtection | null;
  /** Commits `files` onto `branch` in the bare repository (a new branch starts at the base), as another person's push; returns the commit. */
  commit(branch: string, files: Record<string, string>, message?: string): Promise<string>;
  /** Runs `action` when the next merge request arrives, before it is decided: e.g. move the base (a racing merge). */
  beforeNextMerge(action: () => Promise<unknown>): void;
  /**
   * The next `count` API requests (after the token check) answer `status` with GitHub's `message`
   * and `headers`: a 502 of a forge in trouble, a 403 of a rate limit (`x-ratelimit-remaining: 0`).
   */
  failNext(count: number, status: number, message?: string, headers?: Record<string, string>): void;
  /** Commit statuses (the older status API, as Jenkins or CircleCI report, and checks with `commitStatus`), newest last. */
  statuses: FakeStatus[];
  /** Sets a commit status on `sha` (what `POST /repos/{o}/{r}/statuses/{sha}` does). */
  setStatus(sha: string, context: string, state: FakeStatus['state'], description?: string): FakeStatus;
  /** Resolves once every check started so far has completed. */
  ciIdle(): Promise<void>;
  /** The commit `branch` is at in the bare repository. */
  head(branch: string): Promise<string>;
  close(): Promise<void>;
}
