import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';

/**
 * A short hash of the worktree's uncommitted state (status and diff): equal fingerprints
 * after two turns mean the turns changed nothing, which runaway protection counts.
 */
export function worktreeFingerprint(worktreePath: string): string {
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: worktreePath, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'ignore'] });
  return createHash('sha256')
    .update(git('status', '--porcelain=v1', '-uall'))
    .update(git('diff', 'HEAD'))
    .digest('hex')
    .slice(0, 16);
}
