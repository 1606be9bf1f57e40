import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { ApplicationFailure } from '@temporalio/common';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLandingBranchActivities } from '../../../activities/roadmap/landing-branch';
import { createLandingRemoteActivities } from '../../../activities/roadmap/landing-remote';
import type { ForgeTarget } from '../../../core/roadmap/pull-request-types';
import { githubForge } from '../../../host/forge/github-forge';
import type { DexStore } from '../../../store/dex-store';
import { openSqliteDexStore } from '../../../store/sqlite/sqlite-dex-store';
import { startFakeForge, type FakeForge } from '../../support/forge/fake-forge';
import { git } from '../../support/forge/fake-forge-git';
import { runActivity } from '../../support/env/mock-activity';
import { offlineDeps } from '../../support/projects/offline-deps';

// A forge behind a CA of its own (docs/landing-through-prs.md#a-forge-behind-its-own-ca): the fake
// forge serves its API and git over HTTPS with a certificate made for the run, which neither Node
// nor git trusts; `land.pr.caFile` names it for the API (host/forge/ca-fetch.ts) and for dex's git.
const TOKEN_ENV = 'FAKE_FORGE_CRED';
const TOKEN = 'forge-token-0123456789-abcdef';

describe('a forge behind its own CA', () => {
  let dir: string;
  let repo: string;
  let forge: FakeForge;
  let store: DexStore;
  let target: ForgeTarget;

  /** Commits `file` on `branch` of the repository (the test's own git, never over HTTPS); returns the commit. */
  const commit = async (branch: string, file: string) => {
    await git(repo, ['checkout', '-q', '-B', branch]);
    writeFileSync(join(repo, file), `${file}\n`);
    await git(repo, ['add', '-A']);
    await git(repo, ['commit', '-q', '-m', file]);
    return git(repo, ['rev-parse', 'HEAD']);
  };
  const failure = (promise: Promise<unknown>) => promise.then(() => expect.unreachable('it should have failed'), (err: unknown) => err as ApplicationFailure);

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dex-forge-ca-'));
    process.env[TOKEN_ENV] = TOKEN;
    forge = await startFakeForge({ token: TOKEN, checks: [{ name: 'build', run: async () => ({ ok: false, log: 'build broke at line 3\n' }) }] });
    repo = join(dir, 'repo');
    await git(dir, ['clone', '-q', forge.httpRemoteUrl, repo]);
    // dex talks to the forge over HTTPS only; the repository's git config names no CA.
    await git(repo, ['remote', 'set-url', 'origin', forge.remoteUrl]);
    store = openSqliteDexStore(join(dir, 'dex.db'));
    target = { forge: 'github', apiUrl: forge.secureApiUrl, tokenEnv: TOKEN_ENV, owner: forge.owner, repo: forge.repo };
  });
  afterEach(async () => {
    delete process.env[TOKEN_ENV];
    await forge.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('with land.pr.caFile, the API answers over HTTPS: a pull request opened, its checks listed, a job log read across a redirect the token does not follow', async () => {
    const sha = await commit('feature', 'a.txt');
    await git(repo, ['push', '-q', forge.httpRemoteUrl, 'feature']);
    await forge.ciIdle();
    const github = await githubForge({ ...target, caFile: forge.caFile });
    expect(await github.findOpenPullRequest('feature', 'main')).toBeUndefined();
    expect(await github.createPullRequest({ head: 'feature', base: 'main', title: 'add a', body: 'adds a' })).toMatchObject({ number: 1, headSha: sha });
    const [run] = await github.listCheckRuns(sha);
    expect(run).toMatchObject({ name: 'build', status: 'completed', conclusion: 'failure' });
    expect((await github.readCheckLog(run.id, 1000)).text).toContain('build broke at line 3');
    // GitHub answers a job's log with a redirect to a signed URL elsewhere (here: the plain HTTP origin).
    expect(forge.requests.find((r) => r.url.startsWith('/_job-logs/'))?.headers.authorization).toBeUndefined();
    expect(forge.requests.find((r) => r.url.startsWith('/api/v3/'))?.headers.authorization).toBe(`token ${TOKEN}`);
  });

  it('without it, a request fails without retry, saying the certificate is not trusted and naming the setting', async () => {
    const err = await failure((await githubForge(target)).findOpenPullRequest('feature', 'main'));
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect(err).toMatchObject({ type: 'ForgeUntrusted', nonRetryable: true });
    const host = new URL(forge.secureApiUrl).host;
    expect(err.message).toMatch(
      new RegExp(`^could not list pull requests of feature on octo/demo: the certificate of ${host.replace(/\./g, '\\.')} is not trusted on this worker \\(.*self[- ]signed.*\\): name the CA that signed it \\(a PEM file\\) in land\\.pr\\.caFile \\(docs/landing-through-prs\\.md#a-forge-behind-its-own-ca\\)$`),
    );
  });

  it('a caFile of another CA is named in the failure; one missing on the worker fails before any request', async () => {
    const other = join(dir, 'other-ca.pem');
    writeFileSync(other, `${rootCertificates[0]}\n`);
    const wrong = await failure((await githubForge({ ...target, caFile: other })).findOpenPullRequest('feature', 'main'));
    expect(wrong).toMatchObject({ type: 'ForgeUntrusted', nonRetryable: true });
    expect(wrong.message).toContain(`not even with land.pr.caFile ${other}: does that file hold the CA that signed it?`);
    const missing = await failure(githubForge({ ...target, caFile: join(dir, 'nowhere.pem') }));
    expect(missing).toMatchObject({ type: 'ForgeUntrusted', nonRetryable: true });
    expect(missing.message).toBe(`land.pr.caFile ${join(dir, 'nowhere.pem')} does not exist on this worker (docs/landing-through-prs.md#a-forge-behind-its-own-ca)`);
    // Neither got past TLS: the fake recorded no API request.
    expect(forge.requests.filter((r) => r.url.startsWith('/api/'))).toEqual([]);
  });

  it("dex's git pushes and fetches over HTTPS with the setting alone; the owner's http.sslCAInfo alone still works", async () => {
    const branch = createLandingBranchActivities(offlineDeps(store, dir));
    const remote = createLandingRemoteActivities(offlineDeps(store, dir));
    const push = (caFile?: string) =>
      runActivity(branch.pushProposal, [{ repoPath: repo, remote: 'origin', taskBranch: 'dex/task-T1', proposedBranch: 'dex/T1', ...(caFile ? { caFile } : {}) }]);
    const first = await commit('dex/task-T1', 'a.txt');
    await expect(push()).rejects.toThrow(/certificate/i);
    expect(await push(forge.caFile)).toEqual({ status: 'pushed', sha: first });
    expect(await forge.head('dex/T1')).toBe(first);
    const at = { repoPath: repo, remote: 'origin', branch: 'main', taskBranch: 'dex/task-T1', key: 'roadmap-x-1/T1' };
    expect(await runActivity(remote.fetchRemoteHead, [{ ...at, caFile: forge.caFile }])).toMatchObject({ head: await forge.head('main'), contained: true });
    const missing = await failure(push(join(dir, 'nowhere.pem')));
    expect(missing).toMatchObject({ type: 'ForgeUntrusted', nonRetryable: true });

    await forge.trustIn(repo);
    const second = await commit('dex/task-T1', 'b.txt');
    expect(await push()).toEqual({ status: 'pushed', sha: second });
    expect(await forge.head('dex/T1')).toBe(second);
  });
});
