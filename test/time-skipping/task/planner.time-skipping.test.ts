import { describe, expect, it } from 'vitest';
import type { RunStatus } from '../../../core/run/run-types';
import type { TaskResult } from '../../../core/task/task-types';
import { completionTurn, fixSumTurns, inPhase, toolTurn } from '../../support/model/cassette-builder';
import { useDexEnvironment, waitForGate } from '../../support/env/dex-environment';

const plan = (task: string, type: string, reason: string) => inPhase('plan', [toolTurn(task, ['choose_task_type', { type, reason }])]);
const done = (task: string, phase: string) => inPhase(phase, [completionTurn(task, { status: 'complete', summary: `${phase} done` })]);
const escalate = (task: string, phase: string, reason: string) => inPhase(phase, [completionTurn(task, { status: 'escalate', reason })]);

const dex = useDexEnvironment({
  server: 'time-skipping',
  cassette: [
    ...plan('T-plan', 'code_modify', 'it changes sum in src/math.js'),
    ...done('T-plan', 'read'),
    ...inPhase('edit', fixSumTurns('T-plan')),
    ...done('T-plan', 'test'),

    ...plan('T-esc', 'code_modify', 'looks like a code change'),
    ...escalate('T-esc', 'read', 'nothing to change: the task asks what sum does'),
    ...plan('T-esc', 'research', 'a question about the code'),
    ...escalate('T-esc', 'search', 'still unclear which sum is meant'),
    ...done('T-esc', 'search'),
    ...done('T-esc', 'extract'),
    ...done('T-esc', 'synthesize'),
  ],
  queue: 'dex-ts-planner',
});

const planner = { model: 'claude-haiku-4-5' };
const phasesOf = (task: string) => dex.requestsFor(task).map((r) => r.headers['x-dex-phase']);

describe('the planner and escalate', () => {
  it('gives a task without a type one before its first phase, and its steps show in the status', async () => {
    const { handle } = await dex.startTask('T-plan', { planner });
    const result = (await handle.result()) as TaskResult;
    expect(result.state).toBe('completed');
    expect(phasesOf('T-plan')).toEqual(['plan', 'read', 'edit', 'edit', 'edit', 'test']);
    expect(dex.requestsFor('T-plan')[0].body).toMatchObject({ model: 'claude-haiku-4-5', tool_choice: { type: 'tool', name: 'choose_task_type' } });
    const status = await handle.query<RunStatus>('status');
    expect(status.type).toBe('code_modify');
    expect(status.steps).toEqual({ completed: ['read', 'edit', 'test'], pending: [], current: undefined });
    // The result keeps them, so `dex status` shows them once no worker answers the query.
    expect(result).toMatchObject({ type: 'code_modify', steps: { completed: ['read', 'edit', 'test'], pending: [] } });
  });

  it('re-plans the remaining steps at the first escalate, and asks a person at the next', async () => {
    const { handle } = await dex.startTask('T-esc', { planner });
    const waiting = await waitForGate(handle, 'escalate');
    expect(waiting.waitingFor?.reason).toBe('the search step does not fit: still unclear which sum is meant');
    // The re-plan was told what escalated.
    expect(JSON.stringify(dex.requestsFor('T-esc')[2].body!.messages)).toContain('nothing to change: the task asks what sum does');
    await handle.signal('approve', { note: 'the sum in src/math.js' });
    const result = (await handle.result()) as TaskResult;
    expect(result.state).toBe('completed');
    expect(phasesOf('T-esc')).toEqual(['plan', 'read', 'plan', 'search', 'search', 'extract', 'synthesize']);
    expect(JSON.stringify(dex.requestsFor('T-esc')[4].body!.messages)).toContain('A person answered: the sum in src/math.js');
    expect((await handle.query<RunStatus>('status')).type).toBe('research');
  });
});
