import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';

/**
 * Where the git metadata of the worktree at `worktreePath` lives: the worktree's own `.git`
 * entry, the repository's common git folder (objects, refs, config, hooks) and a linked
 * worktree's own git folder, so the sandbox can mount them read-only. Read from the files git writes, not by running git, which could
 * run the repository's code.
 */
export function repositoryMetadata(worktreePath: string): { dotGit?: string; commonDir?: string; gitDir?: string } {
  const dotGit = join(worktreePath, '.git');
  if (!existsSync(dotGit)) return {};
  const info = lstatSync(dotGit);
  if (info.isDirectory()) return { dotGit, commonDir: dotGit };
  if (!info.isFile()) return { dotGit };
  const pointer = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, 'utf8'))?.[1]?.trim();
  if (!pointer) return { dotGit };
  const gitDir = isAbsolute(pointer) ? pointer : resolve(worktreePath, pointer);
  const commonFile = join(gitDir, 'commondir');
  if (!existsSync(commonFile)) return { dotGit, commonDir: gitDir, gitDir };
  const common = readFileSync(commonFile, 'utf8').trim();
  return { dotGit, commonDir: isAbsolute(common) ? common : resolve(gitDir, common), gitDir };
}

/** True when `inner` is `outer` or below it. */
export function isWithin(inner: string, outer: string): boolean {
  const a = resolve(inner);
  const b = resolve(outer);
  return a === b || a.startsWith(b.endsWith('/') ? b : `${b}/`);
}
