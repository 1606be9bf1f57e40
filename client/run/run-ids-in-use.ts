/**
 * Which numbered run ids (`task-math-fix-sum-1`) dex still keeps something of, though the Temporal
 * server may have forgotten their runs: a namespace keeps a closed run only for its retention (the
 * embedded server's, a day), after which the server would take the same id again. A second run
 * under it would share the first one's store rows (a write of a key the store holds is ignored, so
 * it would read the old run's messages back as its own), its worktree's recorded base commit and
 * its branch. `startWithNextId` passes over such ids (docs/interfaces.md#plans-workflows-and-ids).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { taskBranch, workflowKeyPrefix } from '../../core/run/ids';
import { refExists } from '../../host/git/dex-git';
import { BASE_FILE_SUFFIX, worktreesDir } from '../../host/worktree/worktree-home';
import { withExistingStore } from '../command-store';
import type { Settings } from '../settings';

/** Whether `id` is in use on this host: it answers for one id at a time, the store opened once. */
type RunIdInUse = (id: string) => Promise<boolean>;

/**
 * Runs `use` with the check for this host's DEX_HOME and store, and for `repo`'s branches when the
 * runs are tasks of that repository. An SQLite store that does not exist yet holds nothing and is
 * not made.
 */
export function withRunIdsInUse<T>(settings: Settings, repo: string | undefined, use: (inUse: RunIdInUse) => Promise<T>): Promise<T> {
  const onDisk = (id: string) => {
    const worktree = join(worktreesDir(settings.dexHome), id);
    return existsSync(worktree) || existsSync(`${worktree}${BASE_FILE_SUFFIX}`) || (repo !== undefined && refExists(repo, `refs/heads/${taskBranch(id)}`));
  };
  return withExistingStore(
    settings.store,
    (store) => use(async (id) => onDisk(id) || (await store.listPhases(id)).length > 0 || (await store.listTranscripts(workflowKeyPrefix(id))).length > 0 || (await store.hasArtifactsUnder(workflowKeyPrefix(id)))),
    async () => use(async (id) => onDisk(id)),
  );
}
