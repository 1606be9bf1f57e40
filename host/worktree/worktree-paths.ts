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
 * The most folders a worktree path may go down, counted from the root (docs/security.md#bounded-paths):
 * deeper trees are ones common tools cannot walk. @default 64
 */
export const PATH_DEPTH_LIMIT = 64;

/** The most bytes a worktree path may have, relative to the root: well under PATH_MAX (4096). @default 1024 */
export const PATH_BYTES_LIMIT = 1024;

/** True when the worktree path `parts` (relative to the root) is deeper or longer than the limits. */
export function beyondPathLimits(parts: readonly string[]): boolean {
  return parts.length > PATH_DEPTH_LIMIT || Buffer.byteLength(parts.join('/')) > PATH_BYTES_LIMIT;
}

/** `path` quoted for a message, cut after its first 80 characters: a refused path can be thousands long. */
export function shortQuoted(path: string): string {
  return JSON.stringify(path.length > 80 ? `${path.slice(0, 80)}…` : path);
}

/** The refusal of a path beyond the limits, saying which one it passed. */
function limitRefusal(relPath: string, parts: readonly string[]): ToolInputError {
  const why =
    parts.length > PATH_DEPTH_LIMIT ? `${parts.length} folders deep` : `${Buffer.byteLength(relPath)} bytes long`;
  return new ToolInputError(
    `path ${shortQuoted(relPath)} is ${why}; the file tools take paths up to ${PATH_DEPTH_LIMIT} folders deep and ${PATH_BYTES_LIMIT} bytes long`,
  );
}

/**
 * The components of `relPath`, a path relative to a worktree root, with `.` and `..` worked out
 * by name (`[]` is the root). Refuses NUL bytes, absolute paths, paths that climb out of the root,
 * a `.git` component at any depth in any letter case, and paths deeper or longer than
 * {@link PATH_DEPTH_LIMIT} and {@link PATH_BYTES_LIMIT}, by throwing a {@link ToolInputError}.
 */
export function worktreePathParts(relPath: string): string[] {
  const quoted = shortQuoted(relPath);
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
  // The path as given counts, not only what it comes to: `a/../` a thousand times is refused too.
  if (parts.length > PATH_DEPTH_LIMIT || Buffer.byteLength(relPath) > PATH_BYTES_LIMIT) throw limitRefusal(relPath, parts);
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
