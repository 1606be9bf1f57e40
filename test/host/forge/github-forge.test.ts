import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLandingBranchActivities } from '../../../activities/roadmap/landing-branch';
import { CHECK_LOG_BYTES, createForgeActivities } from '../../../activities/roadmap/landing-forge';
import type { ForgeTarget } from '../../../core/roadmap/pull-request-types';
import type { DexStore } from '../../../store/dex-store';
import { openSqliteDexStore } from '../../../store/sqlite/sqlite-dex-store';
import { startFakeForge, type FakeCheck, type FakeForge } from '../../support/forge/fake-forge';
import { git } from '../../support/forge/fake-forge-git';
import { runActivity } from '../../support/env/mock-activity';
import { offlineDeps } from '../../support/projects/offline-deps';

// A variable whose name does not say "secret": the forge activities must still treat its value as one.
const TOKEN_ENV = 'FAKE_FORGE_CRED';
const TOKEN = 'forge-token-0123456789-abcdef';

describe('the GitHub forge against the fake forge, over real git', () => {
  let dir: string;
  let clone: string;
  let forge: FakeForge;
  let store: DexStore;
  let acts: ReturnType<typeof createForgeActivities>;
  let target: ForgeTarget;
  let flakyRuns = 0;
  let releaseBuild: () => void = () => {};

  const checks = (): FakeCheck[] => {
    const building = new Promise<void>((resolve) => (releaseBuild = resolve));
    return [
      { name: 'build', run: async (cwd) => (await building, { ok: await git(cwd, ['ls-files']).then((f) => !f.includes('broken.txt')), log: 'built\n' }) },
      { name: 'flaky', run: async (_cwd, attempt) => ((flakyRuns += 1), { ok: attempt > 1, log: `attempt ${attempt}\n` }) },
    ];
  };

  /** Commits `files` on the task branch of the clone and pushes it to `dex/T1` as branch-mode landing does (dex's own git, over HTTPS). */
  const pushTask = async (files: Record<string, string>) => {
    for (const [path, content] of Object.entries(files)) writeFileSync(join(clone, path), content);
    await git(clone, ['add', '-A']);
    await git(clone, ['commit', '-q', '-m', `change ${Object.keys(files).join(' ')}`]);
    return proposal();
  };
  const proposal = async () => {
    const pushed = await runActivity(createLandingBranchActivities(offlineDeps(store, dir)).pushProposal, [
      { repoPath: clone, remote: 'origin', taskBranch: 'dex/task-T1', proposedBranch: 'dex/T1' },
    ]);
    if (pushed.status !== 'pushed') throw new Error(pushed.reason);
    return pushed.sha;
  };
  const open = () => runActivity(acts.openPullRequest, [{ target, head: 'dex/T1', base: 'main', title: 'T1: add a', descriptionPath: join(dir, 'description.md') }]);
  const readChecks = (pr: number, sha: string) => runActivity(acts.readChecks, [{ target, pr, sha }]);

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dex-github-forge-'));
    writeFileSync(join(dir, 'description.md'), '# T1\n\nadds a\n');
    process.env[TOKEN_ENV] = TOKEN;
    flakyRuns = 0;
    forge = await startFakeForge({ token: TOKEN, checks: checks() });
    clone = join(dir, 'clone');
    await git(dir, ['-c', `http.sslCAInfo=${forge.caFile}`, 'clone', '-q', forge.remoteUrl, clone]);
    await forge.trustIn(clone);
    await git(clone, ['checkout', '-q', '-b', 'dex/task-T1']);
    store = openSqliteDexStore(join(dir, 'dex.db'));
    acts = createForgeActivities(offlineDeps(store, dir));
    target = { forge: 'github', apiUrl: forge.apiUrl, tokenEnv: TOKEN_ENV, owner: forge.owner, repo: forge.repo };
  });
  afterEach(async () => {
    releaseBuild();
    delete process.env[TOKEN_ENV];
    await forge.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('opens one pull request: a second open finds the first, and the pushed commit is what the forge sees', async () => {
    const sha = await pushTask({ 'a.txt': 'a\n' });
    const first = await open();
    expect(first).toMatchObject({ number: 1, head: 'dex/T1', base: 'main', headSha: sha });
    expect(first.url).toBe(`${forge.apiUrl.replace('/api/v3', '')}/octo/demo/pull/1`);
    expect(await open()).toEqual(first);
    expect(forge.pullsCreated()).toBe(1);
    expect(forge.pulls[0].body).toBe('# T1\n\nadds a\n');
    expect(forge.pushesOf(sha)).toBe(1);
    // Pushed again (a retried landing step): git sends nothing, the forge sees no second push.
    expect(await proposal()).toBe(sha);
    expect(forge.pushesOf(sha)).toBe(1);
    expect(forge.pushes).toEqual([{ old: '0'.repeat(40), sha, ref: 'refs/heads/dex/T1' }]);
  });

  it('reads the required checks pending then passed and failed, and a re-run of the flaky one passes', async () => {
    const sha = await pushTask({ 'a.txt': 'a\n' });
    const pr = await open();
    const pending = await readChecks(pr.number, sha);
    expect(pending.checks.find((c) => c.name === 'build')?.state).toBe('pending');
    releaseBuild();
    await forge.ciIdle();
    const done = await readChecks(pr.number, sha);
    expect(Object.fromEntries(done.checks.map((c) => [c.name, c.state]))).toEqual({ build: 'passed', flaky: 'failed' });
    expect(done.missing).toEqual([]);
    const flaky = done.checks.find((c) => c.name === 'flaky')!;
    await runActivity(acts.rerunCheck, [{ target, checkId: flaky.id }]);
    await forge.ciIdle();
    const again = (await readChecks(pr.number, sha)).checks.find((c) => c.name === 'flaky')!;
    expect(again.state).toBe('passed');
    expect(again.id).not.toBe(flaky.id);
    expect(flakyRuns).toBe(2);
  });

  it('reads the required checks of a ruleset as of branch protection', async () => {
    forge.protection = { requiredChecks: ['build', 'security-scan'], strict: true, ruleset: true };
    const sha = await pushTask({ 'a.txt': 'a\n' });
    const report = await readChecks((await open()).number, sha);
    expect(report.checks.map((c) => c.name)).toEqual(['build']);
    expect(report.missing).toEqual(['security-scan']);
  });

  it('names a configured check the forge has not reported as missing', async () => {
    const sha = await pushTask({ 'a.txt': 'a\n' });
    const pr = await open();
    const report = await runActivity(acts.readChecks, [{ target, pr: pr.number, sha, checks: ['flaky', 'deploy-preview'] }]);
    expect(report.missing).toEqual(['deploy-preview']);
    expect(report.checks.map((c) => c.name)).toEqual(['flaky']);
  });

  it('keeps a failed check log bounded to its tail and redacted, the forge token included, once', async () => {
    forge.ci.checks.push({ name: 'lint', run: async () => ({ ok: false, log: `${'x'.repeat(99) + '\n'}`.repeat(20_000) + `token was ${TOKEN}\nalso ghp_0123456789abcdefghijABCDEFGHIJ012345\nlint: 3 errors\n` }) });
    const sha = await pushTask({ 'a.txt': 'a\n' });
    releaseBuild();
    await forge.ciIdle();
    const lint = (await runActivity(acts.readChecks, [{ target, pr: (await open()).number, sha, checks: ['lint'] }])).checks[0];
    expect(lint.state).toBe('failed');
    const log = await runActivity(acts.readCheckLog, [{ target, check: lint, key: 'roadmap-x/T1' }]);
    const stored = (await store.getArtifact(log.ref))!.content;
    expect(Buffer.byteLength(stored)).toBeLessThanOrEqual(CHECK_LOG_BYTES + 100);
    expect(stored).toMatch(/^\[… \d+ earlier bytes of the log not kept\]\nx{99}\n/);
    expect(stored).not.toContain(TOKEN);
    expect(stored).toContain(`token was [REDACTED:${TOKEN_ENV}]`);
    expect(stored).toContain('[REDACTED:github-token]');
    expect(log.excerpt.split('\n').at(-1)).toBe('lint: 3 errors');
    expect(log.excerpt).not.toContain(TOKEN);
    const requests = forge.requests.length;
    expect(await runActivity(acts.readCheckLog, [{ target, check: lint, key: 'roadmap-x/T1' }])).toEqual(log);
    expect(forge.requests.length).toBe(requests);
  });

  it('merges a green pull request into a real merge commit, reports merged again, and deletes the branch', async () => {
    const sha = await pushTask({ 'a.txt': 'a\n' });
    const pr = await open();
    const base = await forge.head('main');
    const merge = { target, pr: pr.number, sha, method: 'merge' as const, title: 'dex: land T1' };
    expect(await runActivity(acts.mergePullRequest, [merge])).toEqual({ status: 'refused', reason: 'Required status check "build" is expected.' });
    releaseBuild();
    await forge.ciIdle();
    expect(await runActivity(acts.mergePullRequest, [merge])).toEqual({ status: 'refused', reason: 'Required status check "flaky" is failing.' });
    await runActivity(acts.rerunCheck, [{ target, checkId: (await readChecks(pr.number, sha)).checks.find((c) => c.name === 'flaky')!.id }]);
    await forge.ciIdle();
    const merged = await runActivity(acts.mergePullRequest, [merge]);
    expect(merged.status).toBe('merged');
    const mergeSha = merged.status === 'merged' ? merged.sha : '';
    expect(await forge.head('main')).toBe(mergeSha);
    expect(await git(forge.bare, ['rev-list', '--parents', '-n', '1', mergeSha])).toBe(`${mergeSha} ${base} ${sha}`);
    expect(await runActivity(acts.mergePullRequest, [merge])).toEqual(merged);
    await runActivity(acts.deletePullBranch, [{ target, branch: 'dex/T1' }]);
    await expect(forge.head('dex/T1')).rejects.toThrow();
    await runActivity(acts.deletePullBranch, [{ target, branch: 'dex/T1' }]);
  });

  it('reports base-moved when the base moves just before the merge, and merges once finalized onto it', async () => {
    forge.ci.checks = [{ name: 'build', command: 'test -f a.txt' }];
    forge.protection = { requiredChecks: ['build'], strict: true };
    const sha = await pushTask({ 'a.txt': 'a\n' });
    const pr = await open();
    await forge.ciIdle();
    forge.beforeNextMerge(() => forge.commit('main', { 'other.txt': 'theirs\n' }, 'someone else lands first'));
    const moved = await runActivity(acts.mergePullRequest, [{ target, pr: pr.number, sha, method: 'squash', title: 'dex: land T1' }]);
    expect(moved).toEqual({ status: 'base-moved', reason: 'Base branch was modified. Review and try the merge again.' });
    await git(clone, ['fetch', '-q', 'origin', 'main']);
    await git(clone, ['merge', '-q', '--no-edit', 'origin/main']);
    const finalized = await proposal();
    expect((await open()).headSha).toBe(finalized);
    await forge.ciIdle();
    expect((await readChecks(pr.number, finalized)).checks).toMatchObject([{ name: 'build', state: 'passed' }]);
    const merged = await runActivity(acts.mergePullRequest, [{ target, pr: pr.number, sha: finalized, method: 'squash', title: 'dex: land T1' }]);
    expect(merged.status).toBe('merged');
    expect(await git(forge.bare, ['show', '-s', '--format=%s', 'main'])).toBe('dex: land T1');
    expect(forge.pushesOf(sha)).toBe(1);
  });

  it('reports a conflict with the base as conflict, and a head moved since the checks as refused', async () => {
    forge.protection = null;
    const sha = await pushTask({ 'README.md': 'ours\n' });
    const pr = await open();
    const stale = await runActivity(acts.mergePullRequest, [{ target, pr: pr.number, sha: 'f'.repeat(40), method: 'merge', title: 't' }]);
    expect(stale).toEqual({ status: 'refused', reason: 'Head branch was modified. Review and try the merge again.' });
    await forge.commit('main', { 'README.md': 'theirs\n' });
    const conflict = await runActivity(acts.mergePullRequest, [{ target, pr: pr.number, sha, method: 'merge', title: 't' }]);
    expect(conflict).toEqual({ status: 'conflict', reason: 'Pull Request is not mergeable' });
  });

  it('rebases: the task commits replayed onto a base that moved, no merge commit', async () => {
    forge.protection = null;
    await pushTask({ 'a.txt': 'a\n' });
    const sha = await pushTask({ 'b.txt': 'b\n' });
    const theirs = await forge.commit('main', { 'other.txt': 'theirs\n' });
    const pr = await open();
    const merged = await runActivity(acts.mergePullRequest, [{ target, pr: pr.number, sha, method: 'rebase', title: 'dex: land T1' }]);
    expect(merged).toEqual({ status: 'merged', sha: await forge.head('main') });
    expect(await git(forge.bare, ['log', '--format=%s', 'main'])).toBe('change b.txt\nchange a.txt\ncommit to main\ninitial commit');
    expect(await git(forge.bare, ['rev-parse', 'main~2'])).toBe(theirs);
    expect(await git(forge.bare, ['ls-tree', '--name-only', 'main'])).toBe('README.md\na.txt\nb.txt\nother.txt');
  });

  it('fails without retry on a wrong or missing token: one line naming the variable, never the token', async () => {
    await pushTask({ 'a.txt': 'a\n' });
    process.env[TOKEN_ENV] = 'wrong-token-value-987654321';
    const refused = await open().then(() => undefined, (err: unknown) => err);
    expect(refused).toBeInstanceOf(ApplicationFailure);
    const failure = refused as ApplicationFailure;
    expect(failure).toMatchObject({ type: 'ForgeAuth', nonRetryable: true });
    expect(failure.message).toBe(`GitHub refused the token in ${TOKEN_ENV} (HTTP 401) to list pull requests of dex/T1 on octo/demo: Bad credentials`);
    expect(failure.message).not.toContain('wrong-token-value');
    delete process.env[TOKEN_ENV];
    await expect(open()).rejects.toMatchObject({ type: 'ForgeAuth', nonRetryable: true, message: `${TOKEN_ENV} is not set on the worker: landing through pull requests needs a GitHub token there` });
    const elsewhere = { ...target, repo: 'nope' };
    process.env[TOKEN_ENV] = TOKEN;
    await expect(runActivity(acts.deletePullBranch, [{ target: elsewhere, branch: 'x' }])).rejects.toMatchObject({ type: 'ForgeNotFound', nonRetryable: true });
    // The token went in Authorization headers only: never in a URL or a body.
    expect(forge.requests.some((r) => r.url.includes(TOKEN) || r.body.includes(TOKEN))).toBe(false);
    expect(forge.requests.filter((r) => r.url.startsWith('/api/v3')).every((r) => r.headers.authorization !== undefined)).toBe(true);
  });
});
