import { readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

/** Folder names never listed: git internals and installed dependencies. */
export const SKIPPED_FOLDERS: ReadonlySet<string> = new Set(['.git', 'node_modules']);

/**
 * The files below `dir` (absolute, inside `root`) as sorted paths relative to `root`, with `/`
 * separators. Skips {@link SKIPPED_FOLDERS}; symbolic links are listed, never followed.
 */
export async function listFiles(root: string, dir: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (current: string): Promise<void> => {
    const entries = await readdir(current, { withFileTypes: true });
    for (const entry of entries) {
      const full = join(current, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(entry.name)) await walk(full);
      } else if (entry.name !== '.git') {
        found.push(relative(root, full).split(sep).join('/'));
      }
    }
  };
  await walk(dir);
  return found.sort();
}

/** `paths` one a line, cut after `cap` lines with a note saying how many were left out. */
export function formatFileList(paths: string[], cap: number): string {
  if (paths.length === 0) return '(no files)';
  if (paths.length <= cap) return paths.join('\n');
  const left = paths.length - cap;
  return `${paths.slice(0, cap).join('\n')}\n… ${left} more file${left === 1 ? '' : 's'} not shown; list a subfolder to see them`;
}
