import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ForgeTarget } from '../../../core/roadmap/pull-request-types';
import { githubForge } from '../../../host/forge/github-forge';
import { openPullDescriptions, openPullDescriptionsOfCommit } from '../../../host/forge/github-issues';
import { startFakeForge, type FakeForge } from '../../support/forge/fake-forge';
import { git } from '../../support/forge/fake-forge-git';

// The descriptions `dex webhook` reads to tell which run a CI delivery is for (client/webhook/ci-routing.ts),
// asked of the fake forge by branch and by commit as GitHub's REST API answers them.
const TOKEN_ENV = 'FAKE_FORGE_CRED';
const TOKEN = 'forge-token-0123456789-abcdef';
const env = { [TOKEN_ENV]: TOKEN };

describe("the open pull requests' descriptions, against the fake forge", () => {
  let forge: FakeForge;
  let target: ForgeTarget;
  /** The commit dex/t1 and its copy are at, the head of both pull requests. */
  let sha: string;

  const open = async (head: string, body: string) => (await githubForge(target, env)).createPullRequest({ head, base: 'main', title: head, body });

  beforeEach(async () => {
    forge = await startFakeForge({ token: TOKEN });
    target = { forge: 'github', apiUrl: forge.apiUrl, tokenEnv: TOKEN_ENV, owner: forge.owner, repo: forge.repo };
    sha = await forge.commit('dex/t1', { 't1.txt': 't1\n' });
    await git(forge.bare, ['update-ref', 'refs/heads/copy', sha]);
    await open('dex/t1', 'proposed by dex (landing roadmap-1/t1).');
    await open('copy', 'a copy');
  });
  afterEach(() => forge.close());

  it('by branch: the open ones whose head is the branch', async () => {
    expect(await openPullDescriptions(target, 'dex/t1', env)).toEqual(['proposed by dex (landing roadmap-1/t1).']);
    expect(await openPullDescriptions(target, 'feature/x', env)).toEqual([]);
  });

  it('by commit: the open ones whose head is at it, newest first, in one request each', async () => {
    expect(await openPullDescriptionsOfCommit(target, sha, env)).toEqual(['a copy', 'proposed by dex (landing roadmap-1/t1).']);
    expect(forge.requests.filter((r) => r.method === 'GET' && r.url.startsWith(`/api/v3/repos/octo/demo/commits/${sha}/pulls`))).toHaveLength(1);
    forge.pulls[1].state = 'closed';
    expect(await openPullDescriptionsOfCommit(target, sha, env)).toEqual(['proposed by dex (landing roadmap-1/t1).']);
    // A push moves the head on: the old commit is no pull request's head any more, the new one is.
    const pushed = await forge.commit('dex/t1', { 't1.txt': 't1 again\n' });
    expect(await openPullDescriptionsOfCommit(target, sha, env)).toEqual([]);
    expect(await openPullDescriptionsOfCommit(target, pushed, env)).toEqual(['proposed by dex (landing roadmap-1/t1).']);
  });

  it('by commit: a commit the forge does not know is refused, as GitHub refuses it', async () => {
    await expect(openPullDescriptionsOfCommit(target, 'f'.repeat(40), env)).rejects.toThrow(/No commit found for SHA/);
  });
});
