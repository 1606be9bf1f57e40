import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApplicationFailure } from '@temporalio/common';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CHECK_LOG_BYTES, createForgeActivities } from '../../../activities/roadmap/landing-forge';
import type { ForgeTarget } from '../../../core/roadmap/pull-request-types';
import { githubForge } from '../../../host/forge/github-forge';
import { keptLog, streamTail, textTail } from '../../../host/forge/log-tail';
import type { DexStore } from '../../../store/dex-store';
import { openSqliteDexStore } from '../../../store/sqlite/sqlite-dex-store';
import { startFakeForge, type FakeForge } from '../../support/forge/fake-forge';
import { runActivity } from '../../support/env/mock-activity';
import { offlineDeps } from '../../support/projects/offline-deps';

// The GitHub forge (host/forge/github-forge.ts) when GitHub is in trouble, refuses, reports checks
// through another app or commit statuses, and the log tail; test/host/forge/github-forge.test.ts has the flow.
const TOKEN_ENV = 'FAKE_FORGE_CRED';
const TOKEN = 'forge-token-0123456789-abcdef';
describe('a log tail', () => {
  it('keeps the last bytes of a stream read chunk by chunk, and says how many went before', async () => {
    async function* chunks() {
      for (let i = 0; i < 10_000; i++) yield Buffer.from(`line ${String(i).padStart(5, '0')} ${'y'.repeat(1000)}\n`);
    }
    const tail = await streamTail(chunks(), CHECK_LOG_BYTES);
    expect(Buffer.byteLength(tail.text)).toBe(CHECK_LOG_BYTES);
    expect(tail.droppedBytes + CHECK_LOG_BYTES).toBe(10_000 * 1012);
    const kept = keptLog(tail);
    expect(kept.split('\n')[1]).toMatch(/^line 09\d{3} y{1000}$/);
    expect(kept.trimEnd().split('\n').at(-1)).toMatch(/^line 09999 /);
    expect(keptLog(textTail('short\n', CHECK_LOG_BYTES))).toBe('short\n');
  });
});

describe('the GitHub forge, when GitHub is in trouble or another app reports a check', () => {
  let dir: string;
  let forge: FakeForge;
  let store: DexStore;
  let acts: ReturnType<typeof createForgeActivities>;
  let target: ForgeTarget;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dex-github-forge-'));
    process.env[TOKEN_ENV] = TOKEN;
    let attempts = 0;
    forge = await startFakeForge({
      token: TOKEN,
      checks: [{ name: 'external-ci', app: 'circleci-checks', run: async () => ({ ok: ++attempts > 1, log: `run ${attempts}: ${TOKEN} leaked\n` }) }],
    });
    store = openSqliteDexStore(join(dir, 'dex.db'));
    acts = createForgeActivities(offlineDeps(store, dir));
    target = { forge: 'github', apiUrl: forge.apiUrl, tokenEnv: TOKEN_ENV, owner: forge.owner, repo: forge.repo };
  });
  afterEach(async () => {
    delete process.env[TOKEN_ENV];
    await forge.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const refusal = (status: number, message?: string, headers?: Record<string, string>) => {
    forge.failNext(1, status, message, headers);
    return runActivity(acts.deletePullBranch, [{ target, branch: 'gone' }]).then(() => undefined, (err: unknown) => err as ApplicationFailure);
  };

  it('retries a 5xx, a 429, a rate-limited 403 and an unreachable forge; a refused request does not retry', async () => {
    expect(await refusal(502, 'Server Error')).toMatchObject({ type: 'ForgeUnavailable', nonRetryable: false, message: 'GitHub answered HTTP 502 to delete branch gone on octo/demo: Server Error' });
    expect(await refusal(429, 'Too many')).toMatchObject({ type: 'ForgeUnavailable', nonRetryable: false });
    // A proxy in between that echoes the token: it is not in the failure.
    expect((await refusal(502, `upstream rejected token ${TOKEN}`))?.message).toBe(`GitHub answered HTTP 502 to delete branch gone on octo/demo: upstream rejected token [REDACTED:${TOKEN_ENV}]`);
    expect(await refusal(403, 'API rate limit exceeded for user.', { 'x-ratelimit-remaining': '0' })).toMatchObject({ type: 'ForgeUnavailable', nonRetryable: false });
    expect(await refusal(403, 'Must have admin rights to Repository.')).toMatchObject({ type: 'ForgeAuth', nonRetryable: true });
    expect(await refusal(403, 'This workflow is already running')).toMatchObject({ type: 'ForgeUnavailable', nonRetryable: false });
    expect(await refusal(400, 'Problems parsing JSON')).toMatchObject({ type: 'ForgeRequestRefused', nonRetryable: true });
    // Deleting a branch already gone is done (GitHub's 422 "Reference does not exist").
    expect(await refusal(422, 'Reference does not exist')).toBeUndefined();
    const closed = { ...target, apiUrl: 'http://127.0.0.1:9/api/v3' };
    await expect(runActivity(acts.rerunCheck, [{ target: closed, checkId: '1' }])).rejects.toMatchObject({ type: 'ForgeUnavailable', nonRetryable: false });
  });

  it("waits out a rate limit as long as GitHub says: the next attempt's delay is its retry-after, or the time to its reset", async () => {
    const secondary = await refusal(403, 'You have exceeded a secondary rate limit.', { 'retry-after': '7' });
    expect(secondary).toMatchObject({ type: 'ForgeUnavailable', nonRetryable: false });
    expect(secondary!.message).toContain('a rate limit: the next attempt waits 7 s');
    expect(Number(secondary!.nextRetryDelay)).toBe(7000);
    const reset = Math.floor(Date.now() / 1000) + 30;
    const primary = await refusal(403, 'API rate limit exceeded for user.', { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) });
    expect(Number(primary!.nextRetryDelay)).toBeGreaterThan(25_000);
    expect(Number(primary!.nextRetryDelay)).toBeLessThanOrEqual(32_000);
    // A 5xx says nothing of how long: the policy's own backoff decides.
    expect((await refusal(502, 'Server Error'))!.nextRetryDelay).toBeUndefined();
  });

  it('re-requests another app check and reads its log from the check run output, redacted', async () => {
    const sha = await forge.commit('feature', { 'b.txt': 'b\n' });
    const first = await runActivity(acts.readChecks, [{ target, pr: 0, sha, checks: ['external-ci'] }]);
    await forge.ciIdle();
    const failed = (await runActivity(acts.readChecks, [{ target, pr: 0, sha, checks: ['external-ci'] }])).checks[0];
    expect([first.checks[0]?.state ?? 'missing', failed.state]).toEqual([expect.stringMatching(/pending|missing/), 'failed']);
    const log = await runActivity(acts.readCheckLog, [{ target, check: failed, key: 'k' }]);
    expect(log.excerpt).toContain(`run 1: [REDACTED:${TOKEN_ENV}] leaked`);
    await runActivity(acts.rerunCheck, [{ target, checkId: failed.id }]);
    await forge.ciIdle();
    expect((await runActivity(acts.readChecks, [{ target, pr: 0, sha, checks: ['external-ci'] }])).checks[0].state).toBe('passed');
    expect(forge.requests.some((r) => r.url.endsWith(`/check-runs/${failed.id}/rerequest`))).toBe(true);
  });

  it('reads an app check re-run in place: the same id with the forge\'s new times, and the log of each completion apart', async () => {
    Object.assign(forge.ci.checks[0], { rerunInPlace: true, run: async (_dir: string, attempt: number) => ({ ok: false, log: `run ${attempt} failed\n` }) });
    const sha = await forge.commit('feature', { 'b.txt': 'b\n' });
    const read = async () => (await runActivity(acts.readChecks, [{ target, pr: 0, sha, checks: ['external-ci'] }])).checks[0];
    await read();
    await forge.ciIdle();
    const failed = await read();
    expect(failed).toMatchObject({ state: 'failed', startedAt: expect.any(String), completedAt: expect.any(String) });
    expect(failed).not.toHaveProperty('rerunnable');
    const firstLog = await runActivity(acts.readCheckLog, [{ target, check: failed, key: 'k' }]);
    await runActivity(acts.rerunCheck, [{ target, checkId: failed.id }]);
    await forge.ciIdle();
    const again = await read();
    expect(again).toMatchObject({ id: failed.id, state: 'failed' });
    expect(Date.parse(again.startedAt!)).toBeGreaterThanOrEqual(Date.parse(failed.completedAt!));
    expect(Date.parse(again.completedAt!)).toBeGreaterThan(Date.parse(failed.completedAt!));
    const secondLog = await runActivity(acts.readCheckLog, [{ target, check: again, key: 'k' }]);
    expect([firstLog.excerpt, secondLog.excerpt].map((e) => e.split('\n').at(-1))).toEqual(['run 1 failed', 'run 2 failed']);
    expect(secondLog.ref).not.toBe(firstLog.ref);
  });

  it('counts a required commit status as a check: pending, failed with its description as the log, blocking the merge until it passes', async () => {
    forge.protection = { requiredChecks: ['jenkins'], strict: true };
    writeFileSync(join(dir, 'description.md'), 'feature\n');
    const sha = await forge.commit('feature', { 'b.txt': 'b\n' });
    const pr = await runActivity(acts.openPullRequest, [{ target, head: 'feature', base: 'main', title: 'feature', descriptionPath: join(dir, 'description.md') }]);
    const read = () => runActivity(acts.readChecks, [{ target, pr: pr.number, sha }]);
    expect(await read()).toEqual({ sha, checks: [], missing: ['jenkins'] });
    forge.setStatus(sha, 'jenkins', 'pending');
    expect((await read()).checks).toMatchObject([{ name: 'jenkins', state: 'pending' }]);
    forge.setStatus(sha, 'jenkins', 'failure', '3 tests failed');
    const [failed] = (await read()).checks;
    // dex cannot re-run a status: the landing counts its failure at once.
    expect(failed).toMatchObject({ state: 'failed', rerunnable: false });
    expect((await runActivity(acts.readCheckLog, [{ target, check: failed, key: 'k' }])).excerpt).toMatch(/^commit status jenkins: failure: 3 tests failed\nhttp/);
    await runActivity(acts.rerunCheck, [{ target, checkId: failed.id }]);
    const merge = { target, pr: pr.number, sha, method: 'merge' as const, title: 'feature' };
    expect(await runActivity(acts.mergePullRequest, [merge])).toEqual({ status: 'refused', reason: 'Required status check "jenkins" is failing.' });
    forge.setStatus(sha, 'jenkins', 'success');
    expect((await read()).checks).toMatchObject([{ name: 'jenkins', state: 'passed' }]);
    expect((await runActivity(acts.mergePullRequest, [merge])).status).toBe('merged');
  });

  it('finds the pull request an earlier attempt opened when the forge refuses a second one', async () => {
    writeFileSync(join(dir, 'description.md'), 'feature\n');
    await forge.commit('feature', { 'b.txt': 'b\n' });
    const input = { target, head: 'feature', base: 'main', title: 'feature', descriptionPath: join(dir, 'description.md') };
    const first = await runActivity(acts.openPullRequest, [input]);
    // A forge whose first look misses the open pull request (a lost reply, a lagging search): the create is refused, the second look finds it.
    let missed = false;
    const lagging = createForgeActivities(offlineDeps(store, dir), async (t) => {
      const real = await githubForge(t);
      return { ...real, findOpenPullRequest: (head, base) => (missed ? real.findOpenPullRequest(head, base) : ((missed = true), Promise.resolve(undefined))) };
    });
    expect(await runActivity(lagging.openPullRequest, [input])).toEqual(first);
    expect(forge.pullsCreated()).toBe(1);
    expect(forge.requests.filter((r) => r.method === 'POST' && r.url.endsWith('/pulls'))).toHaveLength(2);
  });
});
