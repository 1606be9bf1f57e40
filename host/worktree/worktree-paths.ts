import { existsSync, lstatSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { FAILURE, nonRetryable } from '../../core/run/failure-types';

/** A tool input the agent got wrong; its message is shown to the model as the tool result. */
export class ToolInputError extends Error {
  override name = 'ToolInputError';
}

/** True when `name` is git's folder or file (`.git`) in any letter case: case-insensitive file systems see `.GIT` as `.git`. */
export function isGitName(name: string): boolean {
  return name.toLowerCase() === '.git';
}

/** The message for a path that goes through the symbolic link `part` (a prefix of `path`). */
export function symlinkRefusal(path: string, part: string): string {
  const where = part === path ? JSON.stringify(path) : `${JSON.stringify(part)} in ${JSON.stringify(path)}`;
  return `${where} is a symbolic link; the file tools do not follow links, use run_command`;
}

/**
 * The components of `relPath`, a path relative to a worktree root, with `.` and `..` worked out
 * by name (`[]` is the root). Refuses NUL bytes, absolute paths, paths that climb out of the root
 * and a `.git` component at any depth in any letter case, by throwing a {@link ToolInputError}.
 */
export function worktreePathParts(relPath: string): string[] {
  const quoted = JSON.stringify(relPath);
  if (relPath.includes('\0')) throw new ToolInputError(`path ${quoted} contains a NUL byte`);
  if (relPath.startsWith('/')) {
    throw new ToolInputError(`path ${quoted} is absolute; give a path relative to the worktree root`);
  }
  const raw = relPath.split('/');
  // Checked before `..` is worked out, so `.git/../x` is refused too: no reason to name .git at all.
  if (raw.some(isGitName)) throw new ToolInputError(`path ${quoted} is inside .git; git internals are off limits`);
  const parts: string[] = [];
  for (const part of raw) {
    if (part === '' || part === '.') continue;
    if (part !== '..') parts.push(part);
    else if (parts.pop() === undefined) throw new ToolInputError(`path ${quoted} is outside the worktree`);
  }
  return parts;
}

/**
 * Resolves `relPath` inside the worktree at `root` by name and returns the absolute path.
 * Refuses what {@link worktreePathParts} refuses and a symbolic link as any existing component,
 * by throwing a {@link ToolInputError}. Checks names, so a concurrent command can still swap a
 * component afterwards: the agent's file tools open through `worktree-files.ts` instead.
 */
export function resolveInWorktree(root: string, relPath: string): string {
  const parts = worktreePathParts(relPath);
  const realRoot = realpathSync(root);
  for (let i = 1; i <= parts.length; i++) {
    const prefix = parts.slice(0, i);
    let isLink: boolean;
    try {
      isLink = lstatSync(join(realRoot, ...prefix)).isSymbolicLink();
    } catch {
      break; // not there (yet): nothing below it exists either
    }
    if (isLink) throw new ToolInputError(symlinkRefusal(relPath, prefix.join('/')));
  }
  return join(realRoot, ...parts);
}

/**
 * Fails (non-retryable) when the task's worktree is gone: that is the host's problem, not
 * the model's, so it must not come back to the model as a tool error.
 */
export function assertWorktreeExists(worktreePath: string): void {
  if (!existsSync(worktreePath)) {
    throw nonRetryable(FAILURE.WorktreeMissing, `worktree ${worktreePath} does not exist`);
  }
}
