import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LayerRunRecord } from '../../../core/layer/layer-types';
import type { RunStatus } from '../../../core/run/run-types';
import type { TaskResult } from '../../../core/task/task-types';
import type { StoredInsight } from '../../../store/records';
import { completionTurn, fixSumTurns, toJsonl } from '../../support/model/cassette-builder';
import { runDex } from '../../support/env/dex-cli';
import { bwrapProgram } from '../../../host/sandbox/sandbox-availability';
import { useDexEnvironment, waitForGate } from '../../support/env/dex-environment';
import { commitsOnBranch, sampleRepo } from '../../support/env/dev-server-env';
import { insightLine, layerDir, messagesFor } from '../../support/plans/layer-fixtures';
import { plainGit as git } from '../../support/env/plain-git';

/**
 * Safe upgrades (docs/production.md#upgrading-dex-with-runs-in-flight): a run that the previous
 * release's worker started and parked at a gate completes after that worker is stopped and
 * today's worker takes over its queues, as a user upgrading dex would do it. The previous
 * release is built from git history into a worktree of its own, with today's node_modules
 * (release 2026-11-22-0603's dependencies are a subset of today's). A layer run, paused between its targets
 * while the worker is upgraded, goes on the same way.
 */

/** The last release's commit (release 2026-11-22-0603): its recorded histories are test/histories/released/2026-11-22-0603/. */
const RELEASE = '2d66b4a';
const ROOT = join(__dirname, '..', '..', '..');
/** Today's tree; another (a copy with a deliberately incompatible change) shows that this test can fail. */
const TODAY = process.env.DEX_UPGRADE_TODAY ?? ROOT;

const TOPICS = ['up-1', 'up-2', 'up-3'];
const ANSWERS = TOPICS.map((t) => insightLine(t, 'reflect'));
const dex = useDexEnvironment({ server: 'dev', cassette: ANSWERS });

let oldTree = '';

beforeAll(() => {
  oldTree = join(mkdtempSync(join(tmpdir(), 'dex-old-')), RELEASE);
  git(ROOT, 'worktree', 'add', '--detach', oldTree, RELEASE);
  symlinkSync(join(ROOT, 'node_modules'), join(oldTree, 'node_modules'), 'dir');
}, 60_000);

afterAll(() => {
  for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
  if (!oldTree) return;
  git(ROOT, 'worktree', 'remove', '--force', oldTree);
  rmSync(join(oldTree, '..'), { recursive: true, force: true });
});

const workers: ChildProcess[] = [];

/** `dex worker` of the release in `tree`, on the queues of `env`; resolves once it says it polls. */
async function startWorker(tree: string, env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(tree, 'bin', 'dex.js'), 'worker'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  workers.push(child);
  let said = '';
  const started = new Promise<void>((resolve, reject) => {
    const heard = (d: Buffer) => {
      said += d.toString();
      if (said.includes('dex worker polling')) resolve();
    };
    child.stdout!.on('data', heard);
    child.stderr!.on('data', heard);
    child.on('exit', (code) => reject(new Error(`the worker of ${tree} exited (${code}) before it started: ${said}`)));
  });
  await started;
  return child;
}

/** Stops a worker as an operator would before upgrading: SIGTERM, and wait until it has gone. */
async function stopWorker(child: ChildProcess): Promise<void> {
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

/** `promise`, or an error saying `what` did not happen when it has not settled after `ms` (a worker that cannot replay a run retries its workflow task forever). */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  const late = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} did not happen within ${ms / 1000} s`)), ms));
  return Promise.race([promise, late]);
}

/** A question for a person first (the `blocked` gate), then the fix of `sum`. */
function cassetteFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'dex-upgrade-')), 'run.cassette.jsonl');
  writeFileSync(file, toJsonl([completionTurn('*', { status: 'blocked', reason: 'May I change the public API of sum?' }), ...fixSumTurns('*')]));
  return file;
}

describe(`a run started by release ${RELEASE}`, () => {
  it('waits at a gate while the worker is upgraded, then completes on today\'s worker with its commit', { timeout: 180_000 }, async () => {
    // One host: both workers share its DEX_HOME (the store) and its queues.
    // The old release finds no bubblewrap dex fetched into its cache by itself: it is told where it is, as its users would.
    const env = { ...dex.cliEnv(), NODE_OPTIONS: undefined, DEX_BWRAP: bwrapProgram() };
    const oldWorker = await startWorker(oldTree, env);
    const repo = sampleRepo();
    const started = await runDex(['task', 'Fix sum', '--repo', repo, '--llm', `replay:${cassetteFile()}`, '--detach', '--json'], { env, tree: oldTree });
    expect(started.code, started.stderr).toBe(0);
    const id = JSON.parse(started.stdout).workflowId as string;
    const handle = dex.client.workflow.getHandle(id);
    await waitForGate(handle, 'blocked', { timeoutMs: 90_000 });

    await stopWorker(oldWorker);
    await startWorker(TODAY, env);
    const approved = await runDex(['approve', id, '--note', 'yes'], { env });
    expect(approved.code, approved.stderr).toBe(0);

    const result = await within(handle.result() as Promise<TaskResult>, 60_000, `${id} ending on today's worker (see its workflow task failures)`);
    expect(result.state).toBe('completed');
    expect(result.commit).toBeTruthy();
    expect(commitsOnBranch(repo, result.branch)[0]).toContain(result.commit);
    // Two workers served it, and today's went on with its history rather than starting it again.
    const events = (await handle.fetchHistory()).events ?? [];
    expect(new Set(events.flatMap((e) => e.workflowTaskCompletedEventAttributes?.identity ?? [])).size).toBe(2);
    expect(events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'prepareWorktree')).toHaveLength(1);
  });
});

describe(`a layer run started by release ${RELEASE}`, () => {
  it('is paused after its first target while the worker is upgraded, resumes on today\'s worker and stores each target\'s insight once', { timeout: 180_000 }, async () => {
    // The layer's model calls go to the fake Anthropic server, which holds up-1's call until the
    // pause is sent, so the pause lands before up-2 (a hold counted by requests, not by timing).
    const env = { ...dex.cliEnv(), NODE_OPTIONS: undefined, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: dex.fake.url, DEX_BWRAP: bwrapProgram() };
    // A layer file of release 2026-11-22-0603's format: salience as a flat cost per target.
    const layer = layerDir({ name: 'upgrade', topics: TOPICS, cassette: ANSWERS, salience: 'salience: { cost: 0.5, refund: 0.5 }' });
    const messages = join(layer.dir, 'messages.jsonl');
    writeFileSync(messages, messagesFor(TOPICS).map((m) => `${JSON.stringify(m)}\n`).join(''));
    const firstCall = dex.fake.holdRequest({ task: 'up-1' });
    try {
      const oldWorker = await startWorker(oldTree, env);
      const imported = await runDex(['messages', 'import', messages], { env, tree: oldTree });
      expect(imported.code, imported.stderr).toBe(0);
      const started = await runDex(['layer', layer.file, '--detach', '--llm', 'anthropic', '--json'], { env, tree: oldTree });
      expect(started.code, started.stderr).toBe(0);
      const id = JSON.parse(started.stdout).workflowId as string;
      const handle = dex.client.workflow.getHandle(id);
      await within(firstCall.reached, 90_000, `the old worker's model call for up-1 of ${id}`);
      const paused = await runDex(['pause', id], { env, tree: oldTree });
      expect(paused.code, paused.stderr).toBe(0);
      firstCall.release();
      let status = await handle.query<RunStatus>('status');
      for (const until = Date.now() + 30_000; status.tasks?.length !== 1 && Date.now() < until; status = await handle.query<RunStatus>('status')) {
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(status).toMatchObject({ state: 'paused', current: { taskId: 'up-1' }, tasks: [{ id: 'up-1', state: 'completed' }] });

      await stopWorker(oldWorker);
      const todayWorker = await startWorker(TODAY, env);
      const resumed = await runDex(['resume', id], { env });
      expect(resumed.code, resumed.stderr).toBe(0);
      const record = await within(handle.result() as Promise<LayerRunRecord>, 60_000, `${id} ending on today's worker (see its workflow task failures)`);
      await stopWorker(todayWorker);

      expect(record).toMatchObject({ status: 'success', targetsMatched: 3, targetsProcessed: 3, insightsCreated: 3 });
      const listed = await runDex(['insights', 'list', '--run', id, '--json'], { env });
      expect(listed.code, listed.stderr).toBe(0);
      const insights = JSON.parse(listed.stdout) as StoredInsight[];
      expect(insights.map((i) => i.topic).sort()).toEqual(TOPICS);
      // Every target paid release 2026-11-22-0603's flat cost, on the old worker and on today's alike.
      expect(insights.map((i) => i.salienceSpent)).toEqual([0.5, 0.5, 0.5]);
      // Two workers served the run, and today's went on with its history: up-1 ran once, on the old worker.
      const events = (await handle.fetchHistory()).events ?? [];
      expect(new Set(events.flatMap((e) => e.workflowTaskCompletedEventAttributes?.identity ?? [])).size).toBe(2);
      expect(events.filter((e) => e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId === `${id}/up-1`)).toHaveLength(1);
    } finally {
      firstCall.release();
    }
  });
});
