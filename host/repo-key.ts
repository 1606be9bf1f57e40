import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * The key of a repository's project memory: a checkout's real path on this host (the store is per
 * host too), or a forge repository's git URL, the same on every worker of a fleet that shares the
 * store (docs/fleet.md#a-roadmap-on-a-forge-repository): resolved as a path, it would name a folder
 * under each worker's own working directory.
 */
export function repoKeyOf(repoPath: string): string {
  if (/^https:\/\//.test(repoPath)) return repoPath;
  try {
    return realpathSync(repoPath);
  } catch {
    return resolve(repoPath);
  }
}
