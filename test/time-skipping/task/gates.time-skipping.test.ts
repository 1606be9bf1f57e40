import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { GateConfig, RunStatus } from '../../../core/run/run-types';
import type { TaskInput, TaskResult } from '../../../core/task/task-types';
import { completionTurn, fixSumTurns, toolTurn } from '../../support/model/cassette-builder';
import { failureOf, useDexEnvironment, waitForGate } from '../../support/env/dex-environment';

const TASKS = ['T-deadline-approve', 'T-deadline-reject', 'T-early-approve', 'T-pause'];

const dex = useDexEnvironment({
  server: 'time-skipping',
  cassette: [
    ...TASKS.flatMap(fixSumTurns),
    toolTurn('T-cancel', ['write_file', { path: 'scratch.txt', content: 'half-done work' }]),
    completionTurn('T-cancel', { status: 'blocked', reason: 'Which sum do you mean?' }),
  ],
  queue: 'dex-ts-gates',
});

async function start(taskId: string, gates: TaskInput['gates']) {
  return (await dex.startTask(taskId, { gates })).handle;
}

async function statusOf(handle: WorkflowHandle): Promise<RunStatus> {
  return handle.query<RunStatus>('status');
}

const modelRequests = (task: string) => dex.requestsFor(task).length;
const day: GateConfig = { deadline: '24h', defaultAction: 'approve' };

describe('gates on the time-skipping test server', () => {
  it('passes a gate whose 24 h deadline runs out, by its default action, at once', async () => {
    const handle = await start('T-deadline-approve', { beforePhase: day });
    await waitForGate(handle, 'before:implement');
    expect(modelRequests('T-deadline-approve')).toBe(0);
    const before = await dex.env.currentTimeMs();

    await dex.env.sleep('24h');
    const result = (await handle.result()) as TaskResult;

    expect(result.state).toBe('completed');
    expect((await dex.env.currentTimeMs()) - before).toBeGreaterThanOrEqual(24 * 3600_000);
    expect(modelRequests('T-deadline-approve')).toBe(3);
  });

  it('rejects after verify when the deadline passes with reject as the default', async () => {
    const handle = await start('T-deadline-reject', { afterVerify: { deadline: '1h', defaultAction: 'reject' } });
    await waitForGate(handle, 'after-verify:implement');
    await dex.env.sleep('1h');
    const cause = await failureOf(handle);
    expect(cause.type).toBe('TaskRejected');
    expect(cause.message).toContain('no decision within 1h');
  });

  it('lets an approve signal pass the gate before its deadline', async () => {
    const handle = await start('T-early-approve', { beforePhase: day });
    await waitForGate(handle, 'before:implement');
    await handle.signal('approve', { note: 'go', by: 'ana' });
    const result = (await handle.result()) as TaskResult;
    expect(result.state).toBe('completed');
    // The signal passed the gate: its deadline timer was cancelled, never fired. (Comparing
    // clock readings would not do: the test server may skip far ahead once the run is idle.)
    const events = (await handle.fetchHistory()).events ?? [];
    expect(events.filter((e) => e.timerCanceledEventAttributes)).toHaveLength(1);
    expect(events.filter((e) => e.timerFiredEventAttributes)).toHaveLength(0);
  });

  it('pauses before the next activity (after the gate it waits at) and goes on after resume', async () => {
    const handle = await start('T-pause', { beforePhase: {} });
    await waitForGate(handle, 'before:implement');
    await handle.signal('pause');
    // Paused at a gate, it still waits for the gate's answer, and its status says it will stop after it.
    await expect.poll(async () => (await statusOf(handle)).paused, { timeout: 30_000, interval: 100 }).toBe(true);
    expect((await statusOf(handle)).state).toBe('waiting');
    await handle.signal('approve');
    await expect.poll(async () => (await statusOf(handle)).state, { timeout: 30_000, interval: 100 }).toBe('paused');
    expect(modelRequests('T-pause')).toBe(0);
    await handle.signal('resume');
    const result = (await handle.result()) as TaskResult;
    expect(result.state).toBe('completed');
  });

  it('cancelled while it waits, it rolls the worktree back to a clean checkout', async () => {
    const handle = await start('T-cancel', {});
    await waitForGate(handle, 'blocked');
    const worktree = join(dex.worker.dexHome, 'worktrees', handle.workflowId);
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: worktree, encoding: 'utf8' })).toContain('scratch.txt');
    await handle.cancel();
    const err = await handle.result().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: worktree, encoding: 'utf8' })).toBe('');
  });
});
