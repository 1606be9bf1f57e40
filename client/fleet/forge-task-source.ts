/**
 * What `dex task --repo OWNER/NAME` reads of a forge repository before it starts (docs/fleet.md#a-task-on-a-forge-repository):
 * its `dex.config.yaml` at the forge's default branch, from a mirror the client keeps in its own
 * DEX_HOME as a worker would (fetched with the token for that one command, kept nowhere).
 */
import type { ForgeRepository } from '../../core/fleet/repo-locator';
import { InvalidInput } from '../../core/run/invalid-input';
import { dexGitSync } from '../../host/git/dex-git';
import { ensureMirror } from '../../host/git/repo-mirror';
import { forgeCaBundleFile } from '../../host/forge/forge-ca';
import { parseDexConfig, type DexConfig } from '../config/config-file';

/** The repository's config as its default branch has it (the defaults without one); a forge that fails the fetch is one line, exit 2. */
export async function forgeTaskConfig(repo: ForgeRepository, dexHome: string, env: NodeJS.ProcessEnv = process.env): Promise<DexConfig> {
  let mirror: string;
  try {
    mirror = (await ensureMirror(repo, { dexHome, env, caFile: forgeCaBundleFile(repo.caFile) })).path;
  } catch (err) {
    throw new InvalidInput(`--repo ${repo.owner}/${repo.repo}: ${err instanceof Error ? err.message : String(err)}`);
  }
  let text = '';
  try {
    text = dexGitSync(mirror, ['show', 'HEAD:dex.config.yaml']);
  } catch {
    text = ''; // no dex.config.yaml on the default branch: the defaults
  }
  return parseDexConfig(text, mirror);
}
