/**
 * A scripted stand-in for the forge activities (core/roadmap/pull-request-types.ts ForgeActivities)
 * on the time-skipping server: pull requests over a real bare repository (a merge is a real merge
 * commit pushed to its base), checks and merge refusals as each test scripts them, against the
 * server's clock. The real forge (host/forge, over a fake GitHub) is tested apart.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Review } from '../../../core/forge/review';
import type { DexStatus } from '../../../core/forge/dex-status';
import type { CheckState, CheckStatus, ChecksReport, ForgeActivities, MergeOutcome, PullRequestRef } from '../../../core/roadmap/pull-request-types';

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=f', '-c', 'user.email=f@f', ...args], { cwd, encoding: 'utf8' }).trim();

/** What one test scripts: each check's state on a head commit at a time, and the merges the base moved under. */
export interface ForgeScript {
  /** The state of check `name` on `sha`: `run` counts its re-runs (0 first), `sinceMs` the server time since the head was first read. */
  check(name: string, sha: string, run: number, sinceMs: number): CheckState;
  checks: string[];
  /** Merge attempts answered `base-moved` first (another pull request merged just before: the base moved). */
  baseMovedTimes?: number;
  /** The reviews the forge has, for `readReview`. */
  reviews?: Review[];
}

/** What the scripted forge saw, for the test's assertions. */
export interface ForgeCounts {
  created: number;
  reads: number;
  reruns: string[];
  logs: string[];
  merges: number;
  baseMoved: number;
  deleted: string[];
  /** dex's replies in review threads, in order. */
  replies: { thread: number; body: string }[];
  /** The `dex` statuses set, in order. */
  statuses: ({ sha: string } & DexStatus)[];
}

/** The scripted forge over the bare repository at `remote()`, on the server whose clock `now()` reads. */
export function scriptedForge(remote: () => string, now: () => Promise<number>) {
  let script: ForgeScript = { check: () => 'passed', checks: [] };
  let counts: ForgeCounts = { created: 0, reads: 0, reruns: [], logs: [], merges: 0, baseMoved: 0, deleted: [], replies: [], statuses: [] };
  const open = new Map<string, PullRequestRef>();
  const firstRead = new Map<string, number>();
  const runs = new Map<string, number>();
  let numbers = 0;
  let others = 0;

  /** Another pull request merged into `base`: the base moved. */
  const moveBase = (base: string) => {
    const clone = join(mkdtempSync(join(tmpdir(), 'dex-forge-other-')), 'c');
    execFileSync('git', ['clone', '-q', '-b', base, remote(), clone]);
    execFileSync('sh', ['-c', `echo other ${++others} > other-${others}.txt`], { cwd: clone });
    git(clone, 'add', '-A');
    git(clone, 'commit', '-qm', `other pull request ${others}`);
    git(clone, 'push', '-q', 'origin', `HEAD:${base}`);
  };

  const activities: ForgeActivities = {
    async openPullRequest({ head, base }) {
      const found = open.get(head);
      const headSha = git(remote(), 'rev-parse', head);
      if (found) return { ...found, headSha };
      counts.created++;
      const n = ++numbers;
      const ref = { number: n, url: `https://forge.test/acme/app/pull/${n}`, head, base, headSha };
      open.set(head, ref);
      return ref;
    },
    async readChecks({ sha }): Promise<ChecksReport> {
      counts.reads++;
      const t = await now();
      if (!firstRead.has(sha)) firstRead.set(sha, t);
      const checks: CheckStatus[] = script.checks.map((name) => {
        const run = runs.get(`${sha}/${name}`) ?? 0;
        return { name, id: `${sha}/${name}/${run}`, state: script.check(name, sha, run, t - firstRead.get(sha)!) };
      });
      return { sha, checks, missing: [] };
    },
    async rerunCheck({ checkId }) {
      const [sha, name] = checkId.split('/');
      counts.reruns.push(name);
      runs.set(`${sha}/${name}`, (runs.get(`${sha}/${name}`) ?? 0) + 1);
    },
    async readCheckLog({ check }) {
      counts.logs.push(check.name);
      return { name: check.name, ref: `log/${check.id}`, excerpt: `not ok 1 - ${check.name}\n# AssertionError: expected 2, got 3` };
    },
    async mergePullRequest({ pr, sha, title }): Promise<MergeOutcome> {
      counts.merges++;
      const ref = [...open.values()].find((r) => r.number === pr)!;
      if (counts.baseMoved < (script.baseMovedTimes ?? 0)) {
        counts.baseMoved++;
        moveBase(ref.base);
        return { status: 'base-moved', reason: '405 Base branch was modified. Review and try the merge again.' };
      }
      const clone = join(mkdtempSync(join(tmpdir(), 'dex-forge-merge-')), 'c');
      execFileSync('git', ['clone', '-q', '-b', ref.base, remote(), clone]);
      git(clone, 'fetch', '-q', 'origin', sha);
      git(clone, 'merge', '--no-ff', '-q', '-m', title, sha);
      git(clone, 'push', '-q', 'origin', `HEAD:${ref.base}`);
      open.delete(ref.head);
      return { status: 'merged', sha: git(clone, 'rev-parse', 'HEAD') };
    },
    async readReview({ reviewId }) {
      return script.reviews?.find((r) => r.id === reviewId) ?? Promise.reject(new Error(`no review ${reviewId} in the script`));
    },
    async setDexStatus({ sha, status }) {
      counts.statuses.push({ sha, ...status });
    },
    async replyInThread({ thread, body }) {
      counts.replies.push({ thread, body });
      return { url: `https://forge.test/acme/app/pull/1#discussion_r${thread}` };
    },
    async deletePullBranch({ branch }) {
      counts.deleted.push(branch);
      git(remote(), 'update-ref', '-d', `refs/heads/${branch}`);
    },
  };
  return {
    activities,
    /** Starts a test: its script, fresh counts. */
    use(next: ForgeScript): ForgeCounts {
      script = next;
      numbers = 0;
      counts = { created: 0, reads: 0, reruns: [], logs: [], merges: 0, baseMoved: 0, deleted: [], replies: [], statuses: [] };
      return counts;
    },
  };
}
