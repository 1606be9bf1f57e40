/**
 * `dex clean --repo URL` (docs/fleet.md#nothing-lost): the forge's hidden refs of fleet runs that ended
 * without completing go; those of runs still open, and of runs the server does not know, stay. The real
 * `dex clean` (spawned) against a dev server and the fake GitHub (a real bare repository over HTTPS).
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { taskStateRef } from '../../../core/run/ids';
import { runDex } from '../../support/env/dex-cli';
import { bundleFixture, startDevServer } from '../../support/env/dev-server-env';
import { startFakeForge, type FakeForge } from '../../support/forge/fake-forge';

const TOKEN = 'clean-refs-token-0123456789';
let env: TestWorkflowEnvironment;
let worker: Worker;
let workerRun: Promise<void>;
let forge: FakeForge;
const taskQueue = `clean-refs-${process.pid}`;
const refs = () => execFileSync('git', ['for-each-ref', '--format=%(refname)', 'refs/dex/'], { cwd: forge.bare, encoding: 'utf8' }).trim().split('\n').filter(Boolean).sort();

beforeAll(async () => {
  env = await startDevServer();
  worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: await bundleFixture('ci-changed-workflows.ts') });
  workerRun = worker.run();
  forge = await startFakeForge({ token: TOKEN, gitAuth: true, protection: null });
  const sha = await forge.commit('main', { 'README.md': 'hello\n' });
  // Three fleet runs' recorded worktrees: one ended without completing, one still running, one the server never ran.
  for (const id of ['task-failed-1', 'task-open-1', 'task-elsewhere-1']) execFileSync('git', ['update-ref', taskStateRef(id), sha], { cwd: forge.bare });
  await env.client.workflow.start('taskWorkflow', { taskQueue, workflowId: 'task-open-1' });
  const ended = await env.client.workflow.start('taskWorkflow', { taskQueue, workflowId: 'task-failed-1' });
  await ended.terminate('the worker lost its task');
}, 120_000);

afterAll(async () => {
  worker?.shutdown();
  await workerRun;
  await env?.teardown();
  await forge?.close();
});

describe('dex clean --repo', () => {
  it("removes the hidden refs of runs that ended without completing, and keeps the rest, saying why", { timeout: 120_000 }, async () => {
    const cli = { TEMPORAL_ADDRESS: env.address, DEX_HOME: mkdtempSync(join(tmpdir(), 'dex-clean-refs-')), GITHUB_TOKEN: TOKEN, DEX_FORGE_CA_FILE: forge.caFile, DEX_FORGE_API_URL: forge.secureApiUrl };
    const repo = `${new URL(forge.remoteUrl).origin}/${forge.owner}/${forge.repo}`;
    const dry = await runDex(['clean', '--dry-run', '--repo', repo], { env: cli });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`would remove hidden ref ${taskStateRef('task-failed-1')} in octo/demo (task-failed-1, terminated)`);
    expect(refs()).toHaveLength(3);

    const run = await runDex(['clean', '--repo', repo, '--json'], { env: cli });
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as { leftovers: { path: string }[]; kept: { path: string; why: string }[] };
    expect(report.leftovers.map((e) => e.path)).toEqual([taskStateRef('task-failed-1')]);
    expect(report.kept.map((e) => [e.path, e.why]).sort()).toEqual([
      [taskStateRef('task-elsewhere-1'), 'unknown to this server'],
      [taskStateRef('task-open-1'), 'running'],
    ]);
    expect(refs()).toEqual([taskStateRef('task-elsewhere-1'), taskStateRef('task-open-1')]);
  });

  it('takes only a forge repository: a folder is one line, exit 2', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'dex-clean-folder-'));
    const run = await runDex(['clean', '--repo', folder], { env: { TEMPORAL_ADDRESS: env.address, DEX_HOME: mkdtempSync(join(tmpdir(), 'dex-clean-refs-')) } });
    expect(run.stderr).toBe(`dex: --repo ${folder}: dex clean takes a forge repository (https://HOST/OWNER/NAME or OWNER/NAME); a checkout's leftovers are cleaned without it\n`);
    expect(run.code).toBe(2);
  });
});
