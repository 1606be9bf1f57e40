/**
 * The forge of a recorded landing through pull requests, played back (docs/landing-through-prs.md#replaying-a-landing):
 * `dex replay-test` registers these in place of the forge activities, so a replay asks nothing of
 * the real forge and needs no token. The pushes go to a real bare repository made for the replay;
 * a merge the forge recorded is a real merge commit there, so the ticked box and the next tasks'
 * bases are real. Check states are answered by time: a read gets what the forge had said by the
 * same time after the first read of that push, on the server's clock, which time skipping moves —
 * so a CI that took three hours takes three simulated hours.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { execFileSync } from 'node:child_process';
import type { CheckLog, ChecksReport, ForgeActivities, MergeOutcome, PullRequestRef } from '../../core/roadmap/pull-request-types';
import type { Review } from '../../core/forge/review';

import type { DexStore } from '../../store/dex-store';
import type { RecordedForge, RecordedForgeCall } from '../requests/forge-recording';

/** The failure type of a replay that asks the forge what the recording never did. */
const DIVERGED = 'ReplayDiverged';

const diverged = (what: string): never => {
  throw ApplicationFailure.create({ type: DIVERGED, nonRetryable: true, message: `the replay went another way than the recording: ${what}` });
};

/** git in the replay's bare remote, as dex replay-test (no person's identity or config). */
function git(remote: string, ...args: string[]): string {
  const env = { ...process.env, GIT_AUTHOR_NAME: 'dex replay-test', GIT_AUTHOR_EMAIL: 'replay@dex.invalid', GIT_COMMITTER_NAME: 'dex replay-test', GIT_COMMITTER_EMAIL: 'replay@dex.invalid' };
  return execFileSync('git', ['-C', remote, ...args], { encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** The recorded reads of one pull request's checks, one group per commit pushed, in order. */
type ReadGroups = { atMs: number; result: ChecksReport }[][];

/** Indexes the recorded calls by what a replayed call is matched on. */
function indexCalls(calls: RecordedForgeCall[]) {
  const opened = new Map<string, PullRequestRef>();
  const reads = new Map<number, ReadGroups>();
  const merges = new Map<number, MergeOutcome[]>();
  const logs = new Map<string, CheckLog>();
  const failures = new Map<string, string>();
  const shaOf = new Map<number, string>();
  const reviews = new Map<number, Review>();
  const replies = new Map<string, string>();
  for (const call of calls) {
    const input = call.input as { pr?: number; sha?: string; head?: string; check?: { id: string }; reviewId?: number; marker?: string };
    if (call.failure) failures.set(`${call.activity}/${input.head ?? input.pr ?? input.check?.id ?? ''}`, call.failure);
    if (call.result === undefined) continue;
    if (call.activity === 'openPullRequest') opened.set(input.head!, call.result as PullRequestRef);
    if (call.activity === 'readChecks') {
      const groups = reads.get(input.pr!) ?? [];
      if (shaOf.get(input.pr!) !== input.sha || !groups.length) groups.push([]);
      shaOf.set(input.pr!, input.sha!);
      groups[groups.length - 1].push({ atMs: call.atMs, result: call.result as ChecksReport });
      reads.set(input.pr!, groups);
    }
    if (call.activity === 'mergePullRequest') merges.set(input.pr!, [...(merges.get(input.pr!) ?? []), call.result as MergeOutcome]);
    if (call.activity === 'readCheckLog') logs.set(input.check!.id, call.result as CheckLog);
    if (call.activity === 'readReview') reviews.set(input.reviewId!, call.result as Review);
    if (call.activity === 'replyInThread') replies.set(input.marker!, (call.result as { url: string }).url);
  }
  return { opened, reads, merges, logs, failures, reviews, replies };
}

/** The forge activities that answer as `recorded` did, over the bare repository `remote`, check logs put in `store()`. */
export function replayedForgeActivities(recorded: RecordedForge, remote: string, store: () => DexStore): ForgeActivities & { commentOnIssue(): Promise<{ url: string }> } {
  const { opened, reads, merges, logs, failures, reviews, replies } = indexCalls(recorded.calls);
  const pushed = new Map<number, string[]>();
  const firstRead = new Map<string, number>();
  const answered = new Map<string, number>();
  const mergeCount = new Map<number, number>();
  const mergedAs = new Map<number, string>();
  const failed = (key: string) => {
    const failure = failures.get(key);
    if (failure) throw ApplicationFailure.create({ type: 'ReplayedForgeFailure', nonRetryable: true, message: `${failure} (as recorded)` });
  };
  // The server's clock when this call was scheduled: the time-skipping server's, which skips.
  const now = () => Context.current().info.scheduledTimestampMs;

  return {
    async openPullRequest({ head }) {
      failed(`openPullRequest/${head}`);
      const ref = opened.get(head) ?? diverged(`it opened a pull request for ${head}, which the recording did not`);
      return { ...ref, headSha: git(remote, 'rev-parse', `refs/heads/${head}`) };
    },

    async readChecks({ pr, sha }) {
      failed(`readChecks/${pr}`);
      const groups = reads.get(pr) ?? diverged(`it read the checks of PR #${pr}, which the recording never did`);
      const shas = pushed.get(pr) ?? [];
      if (!shas.includes(sha)) pushed.set(pr, [...shas, sha]);
      const push = (pushed.get(pr) ?? []).indexOf(sha);
      const group = groups[push] ?? diverged(`PR #${pr} was pushed ${push + 1} times; the recording read checks on ${groups.length} pushes`);
      const key = `${pr}/${push}`;
      if (!firstRead.has(key)) firstRead.set(key, now());
      const since = now() - firstRead.get(key)!;
      const due = group.reduce((last, read, i) => (read.atMs - group[0].atMs <= since ? i : last), 0);
      const at = Math.max(answered.get(key) ?? 0, due);
      answered.set(key, at);
      return { ...group[at].result, sha };
    },

    async rerunCheck() {
      // The recording's next reads of that check are its re-run's.
    },

    async readReview({ pr, reviewId }) {
      failed(`readReview/${pr}`);
      return reviews.get(reviewId) ?? diverged(`it read review ${reviewId} of PR #${pr}, which the recording did not`);
    },

    async setDexStatus() {
      // What the forge showed a person: nothing the replay reads back.
    },

    async commentOnIssue() {
      // dex's comments on the issue or pull request: shown to people, never read back.
      return { url: '' };
    },

    async replyInThread({ thread, marker }) {
      return { url: replies.get(marker) ?? diverged(`it replied in review thread ${thread}, which the recording did not`) };
    },

    async readCheckLog({ check }) {
      failed(`readCheckLog/${check.id}`);
      const log = logs.get(check.id) ?? diverged(`it read the log of ${check.name} (${check.id}), which the recording did not`);
      await store().putArtifact(log.ref, 'ci-log', recorded.logs[log.ref] ?? '');
      return log;
    },

    async mergePullRequest({ pr, sha, title }) {
      failed(`mergePullRequest/${pr}`);
      const merged = mergedAs.get(pr);
      if (merged) return { status: 'merged', sha: merged };
      const outcomes = merges.get(pr) ?? diverged(`it merged PR #${pr}, which the recording never tried`);
      const n = mergeCount.get(pr) ?? 0;
      mergeCount.set(pr, n + 1);
      const outcome = outcomes[Math.min(n, outcomes.length - 1)];
      if (outcome.status !== 'merged') return outcome;
      const base = [...opened.values()].find((ref) => ref.number === pr)!.base;
      const baseSha = git(remote, 'rev-parse', `refs/heads/${base}`);
      let tree: string;
      try {
        tree = git(remote, 'merge-tree', '--write-tree', baseSha, sha).split('\n')[0];
      } catch {
        return { status: 'conflict', reason: `PR #${pr} conflicts with ${base} in the replay, where the recording merged it` };
      }
      const commit = git(remote, 'commit-tree', tree, '-p', baseSha, '-p', sha, '-m', title);
      git(remote, 'update-ref', `refs/heads/${base}`, commit, baseSha);
      mergedAs.set(pr, commit);
      return { status: 'merged', sha: commit };
    },

    async deletePullBranch({ branch }) {
      try {
        git(remote, 'update-ref', '-d', `refs/heads/${branch}`);
      } catch {
        // Gone already: deleting is idempotent.
      }
    },
  };
}
