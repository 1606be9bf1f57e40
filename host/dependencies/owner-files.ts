import { existsSync } from 'node:fs';
import { join, normalize } from 'node:path';
import { dexGitSync } from '../git/dex-git';
import { copyTree } from './dependency-cache';
import { SetupFailed } from './setup-failed';

/** True when git ignores `path` in `worktree`: only such files may be copied in, or a checkpoint would commit them. */
function ignored(worktree: string, path: string): boolean {
  try {
    dexGitSync(worktree, ['check-ignore', '-q', '--no-index', '--', path]);
    return true;
  } catch {
    return false;
  }
}

/**
 * Copies `paths` (relative files or folders, `setup.copy`) from the owner's checkout into the
 * worktree, like Claude Code's `.worktreeinclude` but checked: each must exist, stay inside the
 * checkout, and be ignored by git, so no checkpoint ever commits it (docs/real-repositories.md#files-from-your-checkout).
 */
export async function copyOwnerFiles(ownerDir: string, worktree: string, paths: string[]): Promise<string[]> {
  for (const path of paths) {
    const clean = normalize(path);
    if (clean.startsWith('..') || clean.startsWith('/')) throw new SetupFailed(`setup failed: setup.copy "${path}" is outside the repository`, '');
    if (!existsSync(join(ownerDir, clean))) throw new SetupFailed(`setup failed: setup.copy "${path}" is not in ${ownerDir}`, '');
    if (!ignored(worktree, clean)) throw new SetupFailed(`setup failed: setup.copy "${path}" is not ignored by git, so a checkpoint would commit it; add it to .gitignore`, '');
  }
  for (const path of paths) {
    if (!existsSync(join(worktree, normalize(path)))) await copyTree(join(ownerDir, normalize(path)), join(worktree, normalize(path)));
  }
  return paths;
}
