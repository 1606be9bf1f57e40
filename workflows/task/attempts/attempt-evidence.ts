import { evidenceOf } from '../../../core/task/attempt-score';
import type { AttemptEvidence } from '../../../core/task/attempts';
import type { TaskInput, Worktree } from '../../../core/task/task-types';
import type { HostActivities } from '../activities';
import type { TaskProgress } from '../progress';

/**
 * What an attempt of a best-of-N task proved, measured as it completes (docs/attempts.md#how-the-choice-is-made):
 * the base's failing tests it fixed and the tests it broke (from the baseline-aware verify), the
 * checks failing because of it, the size of its change, and its AI review's verdict.
 */
export async function attemptEvidence(input: TaskInput, progress: TaskProgress, acts: HostActivities, worktree: Worktree): Promise<AttemptEvidence> {
  const last = progress.lastVerify;
  const size = progress.commit
    ? await acts.measureChange({ repoPath: input.repoPath, repo: input.repo, baseSha: worktree.baseSha, commit: progress.commit }, `attempt ${input.attempt!.name} · measure its change`)
    : { lines: 0, files: 0 };
  return evidenceOf({
    verifyPassed: last?.passed ?? false,
    baseline: progress.baseline,
    stillFailing: last?.preExisting,
    newFailures: last?.newFailures,
    checksFailed: (last?.checks ?? []).filter((c) => !c.passed && !c.preExisting).map((c) => c.name),
    lines: size.lines,
    files: size.files,
    review: progress.review,
  });
}
