/**
 * How `dex clean` removes each kind of leftover (docs/interfaces.md#dex-clean). Git runs through
 * dex's own door (no hooks, no fsmonitor), in the repository's git folder, never in the person's
 * checkout: a worktree is removed by git, a branch deleted by git, which refuses one still checked out.
 */
import { chmodSync, lstatSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { dexGitSync } from '../../host/git/dex-git';

/** Makes every folder below `path` writable, so a tree with read-only folders (a module cache) can go. */
function makeWritable(path: string): void {
  const stat = lstatSync(path);
  if (!stat.isDirectory()) return;
  chmodSync(path, stat.mode | 0o700);
  for (const name of readdirSync(path)) makeWritable(join(path, name));
}

/** Removes the folder `path` and everything in it (a link in it goes, not what it points to). */
export function removeTree(path: string): void {
  try {
    rmSync(path, { recursive: true, force: true });
  } catch {
    makeWritable(path);
    rmSync(path, { recursive: true, force: true });
  }
}

/**
 * Removes the worktree at `path` of the repository whose git folder is `gitDir`, with its
 * uncommitted changes; a worktree whose repository is gone is a plain folder by now.
 */
export function removeWorktree(path: string, gitDir: string | undefined): void {
  if (gitDir) {
    try {
      // Twice --force: also a worktree that is locked or has untracked files.
      dexGitSync(gitDir, ['worktree', 'remove', '--force', '--force', path]);
      return;
    } catch {
      // Fall through: remove the folder, then let git forget it, as prepareWorktree does.
    }
  }
  removeTree(path);
  if (gitDir) dexGitSync(gitDir, ['worktree', 'prune']);
}

/** Deletes `branch` in the repository whose git folder is `gitDir`; git refuses one that is checked out. */
export function deleteBranch(branch: string, gitDir: string): void {
  dexGitSync(gitDir, ['branch', '-D', branch]);
}
