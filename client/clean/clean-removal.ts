/**
 * How `dex clean` removes each kind of leftover (docs/interfaces.md#dex-clean). Git runs through
 * dex's own door (no hooks, no fsmonitor), in the repository's git folder, never in the person's
 * checkout: a worktree is removed by git, a branch deleted by git, which refuses one still checked out.
 */
import { dexGitSync } from '../../host/git/dex-git';
import { removeTree } from '../../host/worktree/remove-tree';

/**
 * Removes the worktree at `path` of the repository whose git folder is `gitDir`, with its
 * uncommitted changes; a worktree whose repository is gone is a plain folder by now.
 */
export async function removeWorktree(path: string, gitDir: string | undefined): Promise<void> {
  if (gitDir) {
    try {
      // Twice --force: also a worktree that is locked or has untracked files.
      dexGitSync(gitDir, ['worktree', 'remove', '--force', '--force', path]);
      return;
    } catch {
      // Fall through: remove the folder (however deep a command nested it, docs/security.md#bounded-paths),
      // then let git forget it, as prepareWorktree does.
    }
  }
  await removeTree(path);
  if (gitDir) dexGitSync(gitDir, ['worktree', 'prune']);
}

/** Deletes `branch` in the repository whose git folder is `gitDir`; git refuses one that is checked out. */
export function deleteBranch(branch: string, gitDir: string): void {
  dexGitSync(gitDir, ['branch', '-D', branch]);
}
