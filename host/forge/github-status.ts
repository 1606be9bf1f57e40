// dex's own commit status on a pull request's head (docs/forge-triggers.md#dex-on-the-pull-request):
// what the landing is doing, where a person looks first. A commit status, not a check run: GitHub
// lets only a GitHub App create check runs, and dex works with a person's or a bot's token.

import { DEX_STATUS_CONTEXT, type DexStatus } from '../../core/forge/dex-status';
import type { ForgeTarget } from '../../core/roadmap/pull-request-types';
import { githubClient } from './github-forge';

/** GitHub keeps a status's description to 140 characters. */
const DESCRIPTION_CHARS = 140;

/** Sets the `dex` status of commit `sha` (setting it again to the same is harmless: GitHub shows the newest). */
export async function setGithubStatus(target: ForgeTarget, sha: string, status: DexStatus, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const { octokit, call } = await githubClient(target, env);
  const description = status.description.length > DESCRIPTION_CHARS ? `${status.description.slice(0, DESCRIPTION_CHARS - 1)}…` : status.description;
  await call(`set the dex status of ${sha.slice(0, 10)}`, () =>
    octokit.rest.repos.createCommitStatus({ owner: target.owner, repo: target.repo, sha, state: status.state, context: DEX_STATUS_CONTEXT, description, ...(status.url ? { target_url: status.url } : {}) }),
  );
}
