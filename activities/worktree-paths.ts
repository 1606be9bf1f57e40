import { ApplicationFailure } from '@temporalio/common';
import { existsSync, lstatSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** A tool input the agent got wrong; its message is shown to the model as the tool result. */
export class ToolInputError extends Error {
  override name = 'ToolInputError';
}

/** True when `rel` (relative to a root) names the root itself or something below it. */
function staysInside(rel: string): boolean {
  return rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/** True when `rel` (relative to a root) is the root's `.git` or something below it. */
function isGitInternals(rel: string): boolean {
  return rel.split(sep)[0].toLowerCase() === '.git';
}

/** The deepest path of `target`'s ancestors (itself included) that exists, by lstat. */
function deepestExisting(target: string): string {
  let current = target;
  for (;;) {
    try {
      lstatSync(current);
      return current;
    } catch {
      const parent = dirname(current);
      if (parent === current) return current;
      current = parent;
    }
  }
}

/**
 * Resolves `relPath` inside the worktree at `root` and returns the absolute (real) path.
 * Refuses absolute paths, paths that leave the root, symlinks that lead out of it, and the
 * root's `.git`, by throwing a {@link ToolInputError}.
 */
export function resolveInWorktree(root: string, relPath: string): string {
  if (relPath.includes('\0')) throw new ToolInputError(`path ${JSON.stringify(relPath)} contains a NUL byte`);
  if (isAbsolute(relPath)) {
    throw new ToolInputError(`path ${JSON.stringify(relPath)} is absolute; give a path relative to the worktree root`);
  }
  const realRoot = realpathSync(root);
  const lexical = resolve(realRoot, relPath === '' ? '.' : relPath);
  const lexicalRel = relative(realRoot, lexical);
  if (!staysInside(lexicalRel)) throw new ToolInputError(`path ${JSON.stringify(relPath)} is outside the worktree`);
  if (isGitInternals(lexicalRel)) {
    throw new ToolInputError(`path ${JSON.stringify(relPath)} is inside .git; git internals are off limits`);
  }

  // The lexical check is not enough: a symlink anywhere on the way may point elsewhere.
  const existing = deepestExisting(lexical);
  let realExisting: string;
  try {
    realExisting = realpathSync(existing);
  } catch {
    // lstat found it but realpath cannot follow it: a dangling symlink, whose target could be anywhere.
    throw new ToolInputError(`path ${JSON.stringify(relPath)} goes through a broken symbolic link`);
  }
  const real = join(realExisting, relative(existing, lexical));
  const realRel = relative(realRoot, real);
  if (!staysInside(realRel)) {
    throw new ToolInputError(`path ${JSON.stringify(relPath)} is outside the worktree (through a symbolic link)`);
  }
  if (isGitInternals(realRel)) {
    throw new ToolInputError(`path ${JSON.stringify(relPath)} leads into .git; git internals are off limits`);
  }
  return real;
}

/**
 * Fails (non-retryable) when the task's worktree is gone: that is the host's problem, not
 * the model's, so it must not come back to the model as a tool error.
 */
export function assertWorktreeExists(worktreePath: string): void {
  if (!existsSync(worktreePath)) {
    throw ApplicationFailure.create({ message: `worktree ${worktreePath} does not exist`, type: 'WorktreeMissing', nonRetryable: true });
  }
}
