import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUNNING_ROADMAPS } from '../../../client/webhook/ci-routing';
import { signatureOf } from '../../../client/webhook/github-events';
import type { CiChanged } from '../../../core/roadmap/pull-request-types';
import { ciChangedSeenQuery } from '../../fixtures/ci-changed-workflows';
import { bundleFixture, startDevServer } from '../../support/env/dev-server-env';
import { spawnWebhook } from '../../support/forge/webhook-process';
import { startFakeForge, type FakeForge } from '../../support/forge/fake-forge';

// The real `dex webhook` (bin/dex.js, spawned) on a real dev server, signalling stand-in runs
// named roadmapWorkflow and taskWorkflow (test/fixtures/ci-changed-workflows.ts) that record
// every ciChanged they receive (docs/landing-through-prs.md#webhooks).

const SECRET = 'webhook-secret-for-the-test';
const TOKEN = 'webhook-routing-token-0123456789';
const SHA = 'abc1234def5678abc1234def5678abc1234def56';
const repository = { id: 1, name: 'hello', full_name: 'octo/hello', owner: { login: 'octo', id: 2, type: 'User' }, private: true };

let env: TestWorkflowEnvironment;
let worker: Worker;
let workerRun: Promise<void>;
let webhook: ChildProcess;
let forge: FakeForge;
let url: string;
let log: () => string = () => '';
/** The commit dex/t7, the head of roadmap-2's pull request, is at. */
let t7 = '';
const taskQueue = `webhook-${process.pid}`;

/** Posts `payload` as GitHub delivers `event`, signed with `secret` (null: unsigned). */
async function deliver(event: string, payload: unknown, secret: string | null = SECRET): Promise<{ status: number; body: unknown }> {
  const body = JSON.stringify(payload);
  const headers: Record<string, string> = { 'Content-Type': 'application/json', 'X-GitHub-Event': event, 'X-GitHub-Delivery': crypto.randomUUID(), 'User-Agent': 'GitHub-Hookshot/test' };
  if (secret) headers['X-Hub-Signature-256'] = signatureOf(secret, body);
  const res = await fetch(url, { method: 'POST', headers, body });
  return { status: res.status, body: await res.json() };
}

const seen = (workflowId: string): Promise<CiChanged[]> => env.client.workflow.getHandle(workflowId).query(ciChangedSeenQuery);

beforeAll(async () => {
  env = await startDevServer();
  worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: await bundleFixture('ci-changed-workflows.ts') });
  workerRun = worker.run();
  for (const [type, id] of [['roadmapWorkflow', 'roadmap-1'], ['roadmapWorkflow', 'roadmap-2'], ['taskWorkflow', 'task-1']]) {
    await env.client.workflow.start(type, { taskQueue, workflowId: id });
  }
  // Visibility is eventually consistent: the receiver lists what the server has indexed.
  for (let i = 0; i < 100; i++) {
    if ((await env.client.workflow.count(RUNNING_ROADMAPS)).count === 2) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  // The forge of the deliveries that name the repository's web URL: its open pull requests say which run waits.
  forge = await startFakeForge({ token: TOKEN, repo: 'hello', gitAuth: true, protection: null });
  await forge.commit('main', { 'README.md': 'hello\n' });
  t7 = await forge.commit('dex/t7', { 't7.txt': 't7\n' });
  const opened = await fetch(`${forge.apiUrl}/repos/octo/hello/pulls`, {
    method: 'POST', headers: { authorization: `token ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ head: 'dex/t7', base: 'main', title: 't7: Add t7', body: 'Branch `dex/t7` at abc, proposed by dex (landing roadmap-2/t7).' }),
  });
  expect(opened.status).toBe(201);
  const started = await spawnWebhook({ TEMPORAL_ADDRESS: env.address, DEX_WEBHOOK_SECRET: SECRET, GITHUB_TOKEN: TOKEN, DEX_FORGE_CA_FILE: forge.caFile, DEX_FORGE_API_URL: forge.secureApiUrl });
  webhook = started.process;
  url = started.url;
  log = started.log;
}, 120_000);

afterAll(async () => {
  if (webhook && webhook.exitCode === null) {
    webhook.kill('SIGTERM');
    await once(webhook, 'exit');
  }
  worker?.shutdown();
  await workerRun;
  await env?.teardown();
  await forge?.close();
});

describe('dex webhook', () => {
  it('answers ping', async () => {
    expect(await deliver('ping', { zen: 'Keep it logically awesome.', hook_id: 1, repository })).toEqual({ status: 200, body: { pong: true } });
  });

  it('signals a completed check suite to every running roadmap, with its branch and commit, and to no task', async () => {
    const payload = {
      action: 'completed',
      check_suite: { id: 5, head_branch: 'dex/t2', head_sha: SHA, status: 'completed', conclusion: 'success', pull_requests: [{ number: 7, head: { ref: 'dex/t2', sha: SHA }, base: { ref: 'main', sha: '0'.repeat(40) } }] },
      repository,
      sender: { login: 'github-actions[bot]' },
    };
    expect(await deliver('check_suite', payload)).toEqual({ status: 200, body: { signalled: 2 } });
    const expected = { owner: 'octo', repo: 'hello', branch: 'dex/t2', sha: SHA };
    expect(await seen('roadmap-1')).toEqual([expected]);
    expect(await seen('roadmap-2')).toEqual([expected]);
    expect(await seen('task-1')).toEqual([]);
    expect(log()).toContain('check_suite completed on dex/t2 (abc1234) in octo/hello: signalled 2 runs');
  });

  it('reads a status by its commit, and a pull request by its head', async () => {
    const status = { id: 9, sha: SHA, name: 'octo/hello', context: 'ci/build', state: 'failure', branches: [{ name: 'dex/t3', commit: { sha: SHA } }], repository };
    expect((await deliver('status', status)).status).toBe(200);
    const pr = { action: 'synchronize', number: 8, pull_request: { number: 8, state: 'open', head: { ref: 'dex/t4', sha: 'f'.repeat(40) }, base: { ref: 'main' } }, repository };
    expect((await deliver('pull_request', pr)).status).toBe(200);
    expect((await seen('roadmap-1')).slice(1)).toEqual([
      { owner: 'octo', repo: 'hello', branch: 'dex/t3', sha: SHA },
      { owner: 'octo', repo: 'hello', branch: 'dex/t4', sha: 'f'.repeat(40) },
    ]);
  });

  it("signals only the run a pull request of dex's names, when the forge can say: one signal, not one per running roadmap", async () => {
    const before = { one: (await seen('roadmap-1')).length, two: (await seen('roadmap-2')).length };
    const web = { ...repository, html_url: `${new URL(forge.remoteUrl).origin}/octo/hello` };
    const payload = { action: 'completed', check_suite: { id: 6, head_branch: 'dex/t7', head_sha: SHA, status: 'completed', conclusion: 'success' }, repository: web };
    expect(await deliver('check_suite', payload)).toEqual({ status: 200, body: { signalled: 1 } });
    expect((await seen('roadmap-2')).slice(before.two)).toEqual([{ owner: 'octo', repo: 'hello', branch: 'dex/t7', sha: SHA }]);
    expect(await seen('roadmap-1')).toHaveLength(before.one);
    // A branch with no pull request of dex's: the forge cannot say, so every running roadmap hears of it.
    const other = { ...payload, check_suite: { ...payload.check_suite, head_branch: 'feature/x' } };
    expect(await deliver('check_suite', other)).toEqual({ status: 200, body: { signalled: 2 } });
  });

  it("routes a status that names no branch by its commit: only the run whose pull request's head it is, else every running roadmap", async () => {
    const before = { one: (await seen('roadmap-1')).length, two: (await seen('roadmap-2')).length };
    const web = { ...repository, html_url: `${new URL(forge.remoteUrl).origin}/octo/hello` };
    // The tip of two branches: GitHub names both, so the delivery names none and only its commit says which run waits.
    const status = { id: 10, sha: t7, name: 'octo/hello', context: 'ci/build', state: 'success', branches: [{ name: 'dex/t7', commit: { sha: t7 } }, { name: 'copy', commit: { sha: t7 } }], repository: web };
    expect(await deliver('status', status)).toEqual({ status: 200, body: { signalled: 1 } });
    expect((await seen('roadmap-2')).slice(before.two)).toEqual([{ owner: 'octo', repo: 'hello', sha: t7 }]);
    expect(await seen('roadmap-1')).toHaveLength(before.one);
    // A commit no pull request has at its head: the forge cannot say, so every running roadmap hears of it.
    const onMain = { ...status, sha: await forge.head('main'), branches: [] };
    expect(await deliver('status', onMain)).toEqual({ status: 200, body: { signalled: 2 } });
  });

  it('refuses an unsigned or wrongly signed delivery with 401 and signals nothing', async () => {
    const before = (await seen('roadmap-1')).length;
    const payload = { action: 'completed', check_run: { id: 3, name: 'test', head_sha: SHA, check_suite: { head_branch: 'dex/t9', head_sha: SHA } }, repository };
    expect((await deliver('check_run', payload, 'not-the-secret')).status).toBe(401);
    expect((await deliver('check_run', payload, null)).status).toBe(401);
    expect(await seen('roadmap-1')).toHaveLength(before);
    expect(log()).toMatch(/refused a check_run from .*: no or a wrong X-Hub-Signature-256/);
  });

  it('answers events no landing waits on with 200 and signals nothing', async () => {
    const before = (await seen('roadmap-1')).length;
    expect(await deliver('push', { ref: 'refs/heads/main', after: SHA, repository })).toEqual({ status: 200, body: { ignored: 'push' } });
    expect(await deliver('pull_request', { action: 'labeled', pull_request: { head: { ref: 'dex/t2', sha: SHA } }, repository })).toEqual({ status: 200, body: { ignored: 'pull_request' } });
    expect(await seen('roadmap-1')).toHaveLength(before);
  });

  it('stops on SIGTERM with exit 0', async () => {
    webhook.kill('SIGTERM');
    const [code] = (await once(webhook, 'exit')) as [number];
    expect(code).toBe(0);
  });
});
