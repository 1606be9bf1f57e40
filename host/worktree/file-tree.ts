import { type FileHandle, readdir } from 'node:fs/promises';
import { relative, sep } from 'node:path';
import { onWorktreePath } from './worktree-file-errors';
import { inFolder, openSubfolder, openWorktreeFolder } from './worktree-files';
import { PATH_BYTES_LIMIT, PATH_DEPTH_LIMIT, isGitName, worktreePathParts } from './worktree-paths';

/** Folder names never listed: git internals (in any letter case) and installed dependencies. */
const SKIPPED_FOLDERS: ReadonlySet<string> = new Set(['.git', 'node_modules']);


/** Not found while listing: it was removed after readdir saw it. */
const isGone = (err: unknown): boolean => (err as NodeJS.ErrnoException).code === 'ENOENT';

/**
 * True when nothing in the folder at `path` (`depth` folders down from the root) is within the
 * file tools' limits: a listing shows it as `path/` and goes no further. Each level walked holds an
 * open fd, and a command can nest folders thousands deep.
 */
const atPathLimits = (path: string, depth: number): boolean =>
  depth >= PATH_DEPTH_LIMIT || Buffer.byteLength(path) >= PATH_BYTES_LIMIT;

/**
 * Adds the files in the open folder `dir` (at `prefix`, `depth` folders down from the root) to
 * `found`, walking subfolders by fd, each opened with O_NOFOLLOW relative to its parent: links are
 * listed, never followed.
 */
async function walk(dir: FileHandle, prefix: string, depth: number, found: string[]): Promise<void> {
  const entries = await readdir(inFolder(dir), { withFileTypes: true });
  for (const entry of entries) {
    if (isGitName(entry.name)) continue;
    const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (!entry.isDirectory()) {
      found.push(path);
      continue;
    }
    if (SKIPPED_FOLDERS.has(entry.name)) continue;
    if (atPathLimits(path, depth + 1)) {
      found.push(`${path}/`);
      continue;
    }
    let sub: FileHandle;
    try {
      sub = await openSubfolder(dir, entry.name);
    } catch (err) {
      if (isGone(err)) continue;
      // ENOTDIR: swapped for a link or a file since readdir; listed, not followed.
      if ((err as NodeJS.ErrnoException).code === 'ENOTDIR') found.push(path);
      else throw err;
      continue;
    }
    try {
      await walk(sub, path, depth + 1, found);
    } finally {
      await sub.close();
    }
  }
}

/**
 * The files at or below `path` (relative to the worktree at `root`) as sorted paths relative
 * to the root, with `/` separators; a path naming a file gives that file alone. Skips
 * {@link SKIPPED_FOLDERS}; symbolic links are listed, never followed, and refused as `path` or a
 * part of it. Throws {@link ToolInputError}s about `path`.
 */
export async function listWorktreeFiles(root: string, path: string): Promise<string[]> {
  const parts = worktreePathParts(path);
  const prefix = parts.join('/');
  const dir = await openWorktreeFolder(root, path);
  if (dir === undefined) return [prefix];
  return onWorktreePath(path, async () => {
    const found: string[] = [];
    try {
      await walk(dir, prefix, parts.length, found);
    } finally {
      await dir.close();
    }
    return found.sort();
  });
}

/**
 * The files below `dir` (absolute, inside `root`) as {@link listWorktreeFiles} lists them:
 * for callers holding host paths.
 */
export async function listFiles(root: string, dir: string): Promise<string[]> {
  return listWorktreeFiles(root, relative(root, dir).split(sep).join('/'));
}

/** `paths` one a line, cut after `cap` lines with a note saying how many were left out. */
export function formatFileList(paths: string[], cap: number): string {
  if (paths.length === 0) return '(no files)';
  if (paths.length <= cap) return paths.join('\n');
  const left = paths.length - cap;
  return `${paths.slice(0, cap).join('\n')}\n… ${left} more file${left === 1 ? '' : 's'} not shown; list a subfolder to see them`;
}
