/**
 * `dex clean --repo URL|OWNER/NAME`: the hidden refs a forge repository holds of fleet runs
 * (`refs/dex/runs/<workflow id>`, docs/fleet.md#nothing-lost) that may go. A landed task's went when it
 * landed; what is left is of runs still open (kept: another worker may need it), of runs that
 * completed without landing (kept: it is their result, as a completed task's branch is), of runs
 * the server does not know (kept), and of runs that ended without completing: those go.
 */
import type { ForgeRepository } from '../../core/fleet/repo-locator';
import { forgeCaBundleFile } from '../../host/forge/forge-ca';
import { ensureMirror, forgeGitIn } from '../../host/git/repo-mirror';
import type { CleanEntry, Removal } from './clean-plan';
import type { RunFates } from './run-fates';

const PREFIX = 'refs/dex/runs/';

/** What of `repo`'s hidden refs goes and what stays, asking `fates` about each run; git runs in the mirror in `dexHome`. */
export async function planForgeRefs(repo: ForgeRepository, fates: RunFates, dexHome: string, env: NodeJS.ProcessEnv = process.env): Promise<{ removals: Removal[]; kept: CleanEntry[] }> {
  const reach = { env, caFile: forgeCaBundleFile(repo.caFile) };
  const { path } = await ensureMirror(repo, { dexHome, ...reach });
  const git = forgeGitIn(repo, path, reach);
  const listed = (await git.raw(['ls-remote', repo.gitUrl, `${PREFIX}*`])).split('\n').filter(Boolean);
  const removals: Removal[] = [];
  const kept: CleanEntry[] = [];
  for (const line of listed) {
    const ref = line.split('\t')[1]?.trim();
    if (!ref?.startsWith(PREFIX)) continue;
    const run = ref.slice(PREFIX.length);
    const entry: CleanEntry = { kind: 'ref', path: ref, repo: `${repo.owner}/${repo.repo}`, run };
    const fate = await fates.of(run);
    if (fate.kind === 'ended' && !fate.completed) {
      removals.push({ entry: { ...entry, state: fate.state }, remove: () => git.raw(['push', '--quiet', repo.gitUrl, `:${ref}`]).then(() => undefined) });
    } else {
      const why = fate.kind === 'open' ? fate.state : fate.kind === 'ended' ? 'completed: its recorded worktree is its result' : 'unknown to this server';
      kept.push({ ...entry, why });
    }
  }
  return { removals, kept };
}
