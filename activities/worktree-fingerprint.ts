import { createHash } from 'node:crypto';
import { dexGitSync } from './dex-git';

/**
 * A short hash of the worktree's uncommitted state (status and diff): equal fingerprints
 * after two turns mean the turns changed nothing, which runaway protection counts.
 */
export function worktreeFingerprint(worktreePath: string): string {
  return createHash('sha256')
    .update(dexGitSync(worktreePath, ['status', '--porcelain=v1', '-uall']))
    // No external diff or textconv: either would run a program the repository's config names.
    .update(dexGitSync(worktreePath, ['diff', '--no-ext-diff', '--no-textconv', 'HEAD']))
    .digest('hex')
    .slice(0, 16);
}
