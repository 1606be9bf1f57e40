// Finalize's git step: merge the moved target into a task's branch in the task's worktree, never in
// the owner's checkout (docs/roadmaps.md#finalize). Conflicts stay in the worktree as markers for
// the finalize phase's model to resolve.

import type { SimpleGit } from 'simple-git';
import type { ActivityDeps } from '../deps';
import { DEX_COMMITTER, dexGit } from '../../host/git/dex-git';
import { heartbeatingWhileRunning } from '../run/local-heartbeat';

/** How merging the target into a worktree went; `head` is the branch's commit before the merge. */
export type TargetMerge =
  | { status: 'contained'; head: string }
  | { status: 'clean'; head: string }
  | { status: 'conflict'; head: string; files: string[] };

/** The files git lists as unmerged in the worktree. */
async function unmergedFiles(git: SimpleGit): Promise<string[]> {
  return (await git.raw(['diff', '--name-only', '--diff-filter=U'])).split('\n').filter(Boolean);
}

/** True when commit `rev` holds commit `target` (by merge-base: simple-git may not raise a bare exit 1). */
export async function contains(git: { raw(args: string[]): Promise<string> }, rev: string, target: string): Promise<boolean> {
  const sha = (await git.raw(['rev-parse', '--verify', `${target}^{commit}`])).trim();
  return (await git.raw(['merge-base', rev, sha]).catch(() => '')).trim() === sha;
}

/** The finalize activities, on the host queue (they touch a worktree). */
export const createLandingMergeActivities = (_deps: ActivityDeps) => heartbeatingWhileRunning({
  /**
   * Merges commit `target` into the branch checked out at `worktreePath`, without committing:
   * the merged tree (or its conflict markers) is left in the worktree for verify and the model.
   * Idempotent: any half-done merge and stray file from an earlier attempt is reset away first,
   * so a retry merges the same commits again; a branch that already holds `target` is `contained`.
   */
  async mergeTarget(input: { worktreePath: string; target: string }): Promise<TargetMerge> {
    const git = dexGit(input.worktreePath, [`user.name=${DEX_COMMITTER.name}`, `user.email=${DEX_COMMITTER.email}`]);
    await git.raw(['reset', '--hard', 'HEAD']);
    await git.raw(['clean', '-ffd']);
    const head = (await git.raw(['rev-parse', 'HEAD'])).trim();
    if (await contains(git, 'HEAD', input.target)) return { status: 'contained', head };
    // git exits 1 on a conflict, which simple-git does not always raise: ask git what is unmerged.
    const failed = await git.raw(['merge', '--no-ff', '--no-commit', input.target]).then(() => undefined, (err: unknown) => err);
    const files = await unmergedFiles(git);
    if (files.length) return { status: 'conflict', head, files };
    if (failed) throw failed;
    return { status: 'clean', head };
  },
});
