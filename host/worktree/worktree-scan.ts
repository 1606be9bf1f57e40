import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { beyondPathLimits, isGitName } from './worktree-paths';

/** What a walk of a worktree found that dex does not commit. */
interface WorktreeScan {
  /** Every `.git` entry below the root in any letter case, other than the root's own (sorted, relative). */
  nestedGit: string[];
  /**
   * The paths just past the limits of docs/security.md#bounded-paths (sorted, relative): the first
   * entry on each way down that is deeper or longer. What lies below one is never walked.
   */
  beyondLimits: string[];
}

/** Folders read at once on one level: concurrent enough to be quick on a big tree. */
const BATCH = 64;

/**
 * Walks the worktree at `root` level by level, but the folders in `skip` (relative: the
 * dependencies setup installed). Symbolic links are listed, never followed; no `.git` is entered,
 * and no folder past the path limits, so a tree thousands of folders deep costs 65 levels.
 */
export async function scanWorktree(root: string, skip: readonly string[] = []): Promise<WorktreeScan> {
  const scan: WorktreeScan = { nestedGit: [], beyondLimits: [] };
  let level: string[][] = [[]];
  while (level.length) {
    const next: string[][] = [];
    for (let start = 0; start < level.length; start += BATCH) {
      await Promise.all(
        level.slice(start, start + BATCH).map(async (folder) => {
          // A folder that cannot be read is one git cannot see into either, so it cannot commit from there.
          const entries = await readdir(join(root, ...folder), { withFileTypes: true }).catch(() => []);
          for (const entry of entries) {
            const parts = [...folder, entry.name];
            const path = parts.join('/');
            if (isGitName(entry.name)) {
              if (path !== '.git') scan.nestedGit.push(path);
            } else if (beyondPathLimits(parts)) scan.beyondLimits.push(path);
            else if (entry.isDirectory() && !skip.includes(path)) next.push(parts);
          }
        }),
      );
    }
    level = next;
  }
  scan.nestedGit.sort();
  scan.beyondLimits.sort();
  return scan;
}
