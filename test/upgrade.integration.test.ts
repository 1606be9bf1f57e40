import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TaskResult } from '../core/task-types';
import { completionTurn, fixSumTurns, toJsonl } from './cassette-builder';
import { runDex, type DexRun } from './dex-cli';
import { useDexEnvironment, waitForGate } from './dex-environment';
import { commitsOnBranch, sampleRepo } from './dev-server-env';
import { plainGit as git } from './plain-git';

/**
 * Safe upgrades (docs/production.md#upgrading-dex-with-runs-in-flight): a run that the previous
 * release's worker started and parked at a gate completes after that worker is stopped and
 * today's worker takes over its queues, as a user upgrading dex would do it. The previous
 * release is built from git history into a worktree of its own, with today's node_modules
 * (2d66b4a's dependencies are a subset of today's).
 */

/** The last release: its recorded histories are test/histories/released/2d66b4a/. */
const RELEASE = '2d66b4a';
const ROOT = join(__dirname, '..');
/** Today's tree; another (a copy with a deliberately incompatible change) shows that this test can fail. */
const TODAY = process.env.DEX_UPGRADE_TODAY ?? ROOT;

const dex = useDexEnvironment({ server: 'dev' });

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

/** Runs `dex …args` of the release in `tree`. */
function runDexOf(tree: string, args: string[], env: NodeJS.ProcessEnv): Promise<DexRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(tree, 'bin', 'dex.js'), ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
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
    const env = { ...dex.cliEnv(), NODE_OPTIONS: undefined };
    const oldWorker = await startWorker(oldTree, env);
    const repo = sampleRepo();
    const started = await runDexOf(oldTree, ['task', 'Fix sum', '--repo', repo, '--llm', `replay:${cassetteFile()}`, '--detach', '--json'], env);
    expect(started.code, started.stderr).toBe(0);
    const id = JSON.parse(started.stdout).workflowId as string;
    const handle = dex.client.workflow.getHandle(id);
    await waitForGate(handle, 'blocked', { timeoutMs: 90_000 });

    await stopWorker(oldWorker);
    await startWorker(TODAY, env);
    const approved = await runDex(['approve', id, '--note', 'yes'], { env });
    expect(approved.code, approved.stderr).toBe(0);

    // A worker that cannot replay the run fails its workflow task again and again, and the run never ends: give up.
    const result = await Promise.race([
      handle.result() as Promise<TaskResult>,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${id} did not end on today's worker within 60 s (see its workflow task failures)`)), 60_000)),
    ]);
    expect(result.state).toBe('completed');
    expect(result.commit).toBeTruthy();
    expect(commitsOnBranch(repo, result.branch)[0]).toContain(result.commit);
    // Two workers served it, and today's went on with its history rather than starting it again.
    const events = (await handle.fetchHistory()).events ?? [];
    expect(new Set(events.flatMap((e) => e.workflowTaskCompletedEventAttributes?.identity ?? [])).size).toBe(2);
    expect(events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'prepareWorktree')).toHaveLength(1);
  });
});
