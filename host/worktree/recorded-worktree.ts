// A fleet task's worktree as recorded on the forge's hidden ref (docs/fleet.md#nothing-lost): a commit
// whose tree is the worktree's files and whose parent is the branch's last commit. A worker that
// takes the task up, or runs its finalize or fix-ci run, starts from it.

import type { SimpleGit } from 'simple-git';
import { runOfTaskBranch, taskStateRef } from '../../core/run/ids';
import { dexGit } from '../git/dex-git';

/** Lays the recorded worktree `state` (a commit whose parent is the worktree's HEAD) on the worktree at `path`: its files, HEAD and index unmoved. */
export async function layState(path: string, state: string): Promise<void> {
  const git = dexGit(path);
  await git.raw(['read-tree', '-m', '-u', 'HEAD', state]);
  await git.raw(['reset', '--quiet']);
}

/**
 * Sets task branch `branch` of a mirror to the commit its run last recorded on the forge's hidden
 * ref (docs/fleet.md#nothing-lost: the recorded worktree's parent), when there is one: the branch
 * may be missing on this worker, or behind, when another worker ran the task's last run.
 */
export async function followRecordedBranch(git: SimpleGit, branch: string): Promise<void> {
  const run = runOfTaskBranch(branch);
  const recorded = run && (await git.raw(['rev-parse', '--verify', '--quiet', `${taskStateRef(run)}^1`]).then((out) => out.trim(), () => ''));
  if (!recorded) return;
  await git.raw(['worktree', 'prune']);
  await git.raw(['branch', '--force', branch, recorded]);
}

