// A worker killed with SIGKILL while a roadmap waits for CI on its pull request
// (docs/landing-through-prs.md#what-happens-to-a-finished-task): the wait is durable, so a new worker takes it up
// and the task lands, with one pull request and one push of its commit.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { buildRoadmapInput } from '../../../client/requests/roadmap-request';
import { readSettings } from '../../../client/settings';
import type { RoadmapInput, RoadmapResult } from '../../../core/roadmap/roadmap-types';
import type { RunStatus } from '../../../core/run/run-types';
import { ciChangedSignal } from '../../../core/run/definitions';
import { completionTurn, toolTurn } from '../../support/model/cassette-builder';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { startFakeForge, type FakeForge } from '../../support/forge/fake-forge';
import { git } from '../../support/forge/fake-forge-git';
import { roadmapRepo } from '../../support/plans/roadmap-fixture';
import { crashWorker, killDexWorkers, spawnDexWorker } from '../../support/env/worker-process';

const TOKEN_ENV = 'DEX_IT_FORGE_TOKEN';
const TOKEN = 'forge-token-crash-0123456789';
const queues = { taskQueue: 'dex-crash-pr', hostQueue: 'dex-crash-pr@host-a' };

const dex = useDexEnvironment({
  server: 'dev',
  cassette: [toolTurn('K1', ['write_file', { path: 'src/one.js', content: 'exports.one = () => 1;\n' }]), completionTurn('K1', { status: 'complete', summary: 'added one' })],
});
const dexHome = mkdtempSync(join(tmpdir(), 'dex-crash-pr-home-'));
const worker = () => spawnDexWorker({ address: dex.env.address, dexHome, ...queues, anthropicUrl: dex.fake.url, env: { [TOKEN_ENV]: TOKEN } });

let forge: FakeForge | undefined;
afterEach(async () => forge?.close());
afterAll(() => killDexWorkers());

describe('a worker killed while the run waits for CI', () => {
  it('is replaced by one that goes on waiting and lands the task: no second pull request, no second push of the same commit', async () => {
    let release = () => {};
    const building = new Promise<void>((resolve) => (release = resolve));
    forge = await startFakeForge({ token: TOKEN, seed: false, checks: [{ name: 'test', run: async () => (await building, { ok: true, log: 'ok\n' }) }] });
    const repo = roadmapRepo('- [ ] K1: Add one\n', 'verify: ["node --test"]\n');
    await git(repo, ['push', '-q', forge.httpRemoteUrl, 'main']);
    await git(repo, ['remote', 'add', 'origin', forge.remoteUrl]);
    await forge.trustIn(repo);
    const settings = { ...readSettings({}), ...queues };
    const checked = buildRoadmapInput({ roadmap: join(repo, 'ROADMAP.md'), llm: 'anthropic' }, settings, { ANTHROPIC_API_KEY: 'test-key' });
    const pr = { forge: 'github' as const, apiUrl: forge.apiUrl, tokenEnv: TOKEN_ENV, owner: forge.owner, repo: forge.repo, profile: 'auto' as const, fixAttempts: 2, ciTimeoutMinutes: 60, mergeMethod: 'merge' as const };
    const input = { ...checked.input, land: { remote: 'origin', mode: 'pr' as const, pr } } satisfies RoadmapInput;

    const first = worker();
    const handle = await dex.client.workflow.start('roadmapWorkflow', { workflowId: checked.workflowId, taskQueue: queues.taskQueue, args: [input] });
    await expect
      .poll(async () => (await handle.query<RunStatus>('status').catch(() => undefined))?.current.activity ?? '', { timeout: 90_000, interval: 200 })
      .toMatch(/^waiting for CI on PR #1: test pending$/);
    const waiting = await handle.query<RunStatus>('status');
    expect(waiting.current).toMatchObject({ taskId: 'K1', phase: 'CI of PR #1' });
    const head = forge.pulls[0].headSha;
    await crashWorker(first);

    worker();
    release();
    await forge.ciIdle();
    // What `dex webhook` sends for the completed check: the new worker's wait wakes on it.
    await handle.signal(ciChangedSignal, { owner: forge.owner, repo: forge.repo, sha: head });
    const result = (await handle.result()) as RoadmapResult;
    expect(result.tasks[0]).toMatchObject({ id: 'K1', state: 'completed', pullRequest: { number: 1, merged: expect.any(String) } });
    expect(forge.pullsCreated()).toBe(1);
    expect(forge.pushesOf(head)).toBe(1);
    expect(forge.pushes.filter((p) => p.ref === 'refs/heads/dex/K1' && !/^0+$/.test(p.sha))).toHaveLength(1);
    expect(forge.pulls[0]).toMatchObject({ merged: true, headSha: head });
  }, 180_000);
});
