/**
 * The `measureChange` activity: how big an attempt's change is (docs/attempts.md#how-the-choice-is-made),
 * lines added plus removed and files touched between its base and its last commit, read from the
 * repository that holds its branch. A binary file counts as a file with no lines.
 */
import type { ForgeRepository } from '../../core/fleet/repo-locator';
import type { ActivityDeps } from '../deps';
import { dexGit } from '../../host/git/dex-git';
import { repositoryHere } from './worktree-state';

/** Lines added plus removed and files touched, from `git diff --numstat` output. */
export function changeSizeOf(numstat: string): { lines: number; files: number } {
  let lines = 0;
  let files = 0;
  for (const line of numstat.split('\n')) {
    const [added, removed] = line.split('\t');
    if (removed === undefined) continue;
    files++;
    lines += (Number(added) || 0) + (Number(removed) || 0);
  }
  return { lines, files };
}

/** The activity, built from the host's dependencies. */
export const createChangeSizeActivities = (deps: ActivityDeps) => ({
  /** The size of `commit` against `baseSha`; the same answer however often it runs. */
  async measureChange(input: { repoPath: string; repo?: ForgeRepository; baseSha: string; commit: string }): Promise<{ lines: number; files: number }> {
    const git = dexGit(await repositoryHere(input, deps.dexHome));
    return changeSizeOf(await git.raw(['diff', '--numstat', '--no-renames', '--no-ext-diff', '--no-textconv', input.baseSha, input.commit]));
  },
});
