import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';

/** The key of a repository's project memory: its real path on this host (the store is per host too). */
export function repoKeyOf(repoPath: string): string {
  try {
    return realpathSync(repoPath);
  } catch {
    return resolve(repoPath);
  }
}
