import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { TaskResult } from '../../../core/task/task-types';
import { completionTurn, toolTurn } from '../../support/model/cassette-builder';
import { useDexEnvironment, waitForGate } from '../../support/env/dex-environment';

const FIX = { path: 'src/math.js', old_string: 'return a - b;', new_string: 'return a + b;' };
const fixes = (task: string) => [toolTurn(task, ['edit_file', FIX]), completionTurn(task, { status: 'complete', summary: 'adds' })];
/** An attempt that first runs a long command, and would fix it after. */
const slow = (task: string) => [toolTurn(task, ['run_command', { command: 'sleep 60' }]), ...fixes(task)];
/** An attempt that thinks first (C passes meanwhile), then keeps writing notes, turn after turn, and never finishes within its lines. */
const wandering = (task: string) => [
  toolTurn(task, ['run_command', { command: 'sleep 4' }]),
  ...Array.from({ length: 11 }, (_, i) => toolTurn(task, ['write_file', { path: `notes/${i}.md`, content: `note ${i}\n` }])),
];

const dex = useDexEnvironment({
  server: 'dev',
  cassette: [completionTurn('T-ask-A', { status: 'blocked', reason: 'Which sum do you mean?' }), ...fixes('T-ask-B'), ...fixes('T-time-A'), ...slow('T-time-B'), ...fixes('T-first-A'), ...slow('T-first-B'), ...slow('T-first-C'), ...wandering('T-cut-A'), ...wandering('T-cut-B'), ...fixes('T-cut-C'), ...wandering('T-none-A'), ...wandering('T-none-B')],
  queue: 'dex-it-best-of-stopping',
});

const worktrees = (repo: string) => execFileSync('git', ['worktree', 'list', '--porcelain'], { cwd: repo, encoding: 'utf8' }).split('\n').filter((l) => l.startsWith('worktree '));

describe('best of N: stopping early', () => {
  it('first-pass: once A passes, B and C are cancelled mid-command, make no model call after, and leave no worktree', async () => {
    const { repo, handle } = await dex.startTask('T-first', { attempts: { count: 3, stopWhen: 'first-pass' } });
    const result = (await handle.result()) as TaskResult;
    expect(result.state, result.error).toBe('completed');
    expect(result.chosen?.name).toBe('A');
    expect(result.attempts!.map((r) => r.state)).toEqual(['completed', 'cancelled', 'cancelled']);
    // Each slow attempt asked the model once (for its sleep); the fix its cassette holds after was never asked for.
    expect(dex.requestsFor('T-first-B')).toHaveLength(1);
    expect(dex.requestsFor('T-first-C')).toHaveLength(1);
    expect(worktrees(repo)).toHaveLength(1);
  });

  it('an attempt that asks a person ends rejected at once, and the other goes on and is chosen', async () => {
    const { handle } = await dex.startTask('T-ask', { attempts: { count: 2 } });
    const result = (await handle.result()) as TaskResult;
    expect(result.state, result.error).toBe('completed');
    expect(result.chosen?.name).toBe('B');
    expect(result.attempts![0]).toMatchObject({ state: 'rejected', note: expect.stringContaining('it asked a person: Which sum do you mean?') });
  });

  it('timeLimit: when it comes, the attempts still running are cancelled and the best finished one is chosen', async () => {
    const { handle } = await dex.startTask('T-time', { attempts: { count: 2, timeLimitMs: 8000 } });
    const result = (await handle.result()) as TaskResult;
    expect(result.state, result.error).toBe('completed');
    expect(result.chosen?.name).toBe('A');
    expect(result.attempts!.map((r) => [r.state, r.note])).toEqual([['completed', undefined], ['cancelled', 'stopped: the time limit came']]);
    expect(dex.requestsFor('T-time-B')).toHaveLength(1);
  });

  it('the budget runs out mid-way: the attempts still running stop, and the one that passed is offered at the choose gate', async () => {
    const { handle } = await dex.startTask('T-cut', { attempts: { count: 3 }, budget: { usd: 0.1 }, maxIterations: 12 });
    const waiting = await waitForGate(handle, 'choose');
    expect(waiting.waitingFor?.reason).toMatch(/^the budget ran out; 3 tried, 1 passed, chose C/);
    expect(waiting.attempts!.map((r) => r.state)).toEqual([expect.stringMatching(/^(rejected|cancelled)$/), expect.stringMatching(/^(rejected|cancelled)$/), 'completed']);
    expect(waiting.costUsd).toBeLessThanOrEqual(0.1);
    await handle.executeUpdate('decide', { args: [{ action: 'approve', by: 'ana' }] });
    const result = (await handle.result()) as TaskResult;
    expect(result.state).toBe('completed');
    expect(result.chosen).toMatchObject({ name: 'C', by: 'ana' });
  });

  it('the budget runs out before any attempt passed: the task ends budget_exceeded', async () => {
    const { handle } = await dex.startTask('T-none', { attempts: { count: 2 }, budget: { usd: 0.06 }, maxIterations: 12 });
    const failure = await handle.result().then(() => undefined, (err: { cause?: { message?: string; details?: TaskResult[] } }) => err.cause);
    expect(failure?.message, failure?.message).toMatch(/^the budget ran out before any attempt passed \(A (cancelled: stopped|rejected): .*; B (cancelled: stopped|rejected)/);
    expect(failure?.details?.[0]).toMatchObject({ state: 'budget_exceeded' });
  });
});
