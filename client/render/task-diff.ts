/**
 * What a task changed, read with dex's own git (host/git/dex-git.ts: no repository hooks, no
 * fsmonitor): its branch against the commit it started from, and the uncommitted changes of its
 * worktree while that is on this host (a running task's, or a failed task's kept worktree).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { dexGitSync, refExists } from '../../host/git/dex-git';

/** Where a task's changes are: its repository, branch, base commit and (while it exists) worktree. */
interface TaskChangesAt {
  repoPath: string;
  branch: string;
  baseSha: string;
  /** The task's commit, for when its branch is gone. */
  commit?: string;
  worktreePath?: string;
}

/** A task's changes as diffs. */
export interface TaskChanges {
  repoPath: string;
  branch: string;
  base: string;
  /** `git diff <base>..<branch>`: what its checkpoint commits changed. */
  committed: string;
  /** What its worktree holds beyond its last commit, untracked files included. */
  uncommitted?: string;
  worktreePath?: string;
}

// Never an external diff program or a textconv filter: the repository's config would name them.
const DIFF = ['diff', '--no-color', '--no-ext-diff', '--no-textconv'];

/** Git's output when it exits 0 or 1 (`diff --no-index` exits 1 when files differ). */
function gitDiffOutput(cwd: string, args: string[]): string {
  try {
    return dexGitSync(cwd, args);
  } catch (err) {
    const e = err as { status?: number; stdout?: unknown };
    if (e.status === 1 && typeof e.stdout === 'string') return e.stdout;
    throw err;
  }
}

/** The uncommitted changes of `worktreePath`: tracked files against HEAD, then each untracked file as new. */
function uncommittedDiff(worktreePath: string): string {
  const tracked = dexGitSync(worktreePath, [...DIFF, 'HEAD', '--']);
  const untracked = dexGitSync(worktreePath, ['ls-files', '--others', '--exclude-standard', '-z']).split('\0').filter(Boolean);
  const added = untracked.map((file) => gitDiffOutput(worktreePath, [...DIFF, '--no-index', '--', '/dev/null', join('.', file)]));
  return [tracked, ...added].join('');
}

/** The task's changes; throws when its repository is not on this host. */
export function taskChanges(at: TaskChangesAt): TaskChanges {
  if (!existsSync(at.repoPath)) throw new Error(`the task's repository ${at.repoPath} is not on this host`);
  const tip = refExists(at.repoPath, `refs/heads/${at.branch}`) ? at.branch : at.commit;
  const committed = tip ? dexGitSync(at.repoPath, [...DIFF, `${at.baseSha}..${tip}`, '--']) : '';
  const worktree = at.worktreePath && existsSync(at.worktreePath) ? at.worktreePath : undefined;
  return {
    repoPath: at.repoPath,
    branch: at.branch,
    base: at.baseSha,
    committed,
    ...(worktree ? { uncommitted: uncommittedDiff(worktree), worktreePath: worktree } : {}),
  };
}

/** A task's changes as text, under a line saying what is compared. */
export function renderTaskChanges(workflowId: string, c: TaskChanges): string {
  const lines = [`# ${workflowId}: ${c.branch} against ${c.base.slice(0, 10)} in ${c.repoPath}`, c.committed.trimEnd() || '(no committed changes)'];
  if (c.worktreePath) lines.push(`# uncommitted in ${c.worktreePath}`, c.uncommitted?.trimEnd() || '(none)');
  return lines.join('\n');
}
