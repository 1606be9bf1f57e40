import { describe, expect, it } from 'vitest';
import type { TaskResult } from '../../../core/task/task-types';
import { costOf } from '../../../core/run/pricing';
import { fixSumTurns, inPhase, TEST_MODEL, toolTurn, usageTotals } from '../../support/model/cassette-builder';
import { useDexEnvironment, waitForGate } from '../../support/env/dex-environment';

const GATE = 'after-verify:implement';
const FINDINGS = 'No test covers negative numbers: add one to test/math.test.js.';

/** The gate model's answer through its one tool. */
const verdict = (task: string, answer: { verdict: string; findings: string }) => inPhase(GATE, [toolTurn(task, ['gate_verdict', answer])]);

// The retry starts again from the base (nothing was committed before the gate).
const IMPLEMENT = [...fixSumTurns('T-ai'), ...fixSumTurns('T-ai')];
const GATE_CALLS = [...verdict('T-ai', { verdict: 'reject', findings: FINDINGS }), ...verdict('T-ai', { verdict: 'approve', findings: 'covered now' })];

const dex = useDexEnvironment({
  server: 'time-skipping',
  cassette: [...IMPLEMENT.slice(0, 3), GATE_CALLS[0], ...IMPLEMENT.slice(3), GATE_CALLS[1], ...fixSumTurns('T-ai-down')],
  queue: 'dex-ts-ai-gates',
});

const modelGate = { by: 'model' as const, model: 'claude-haiku-4-5', instructions: 'Every change to src/ needs a test.' };

describe('gates answered by a model', () => {
  it('rejects with findings, the phase retries with them, then approves; the gate calls are paid for', async () => {
    const { handle } = await dex.startTask('T-ai', { gates: { afterVerify: modelGate }, maxRetries: 3 });
    const result = (await handle.result()) as TaskResult;
    expect(result.state).toBe('completed');

    const requests = dex.requestsFor('T-ai');
    expect(requests.map((r) => r.headers['x-dex-phase'])).toEqual(['implement', 'implement', 'implement', GATE, 'implement', 'implement', 'implement', GATE]);
    const gate = requests[3].body!;
    expect(gate).toMatchObject({ model: 'claude-haiku-4-5', tool_choice: { type: 'tool', name: 'gate_verdict' } });
    const prompt = JSON.stringify(gate.messages);
    expect(prompt).toContain('Every change to src/ needs a test.');
    expect(prompt).toContain('return a + b;'); // the diff it judges
    expect(prompt).toContain('Verification passed');
    // The retried implement is told what the gate found.
    expect(JSON.stringify(requests[4].body!.messages)).toContain(FINDINGS);
    // All eight calls are in the bill: six agent turns on sonnet, the gate's two on haiku.
    expect(result.turns).toBe(6);
    const expected = costOf(TEST_MODEL, usageTotals(IMPLEMENT)) + costOf('claude-haiku-4-5', usageTotals(GATE_CALLS));
    expect(result.costUsd).toBeCloseTo(expected, 12);
  });

  it('asks a person when the gate model fails (its API answers 500), and the approve lets the task finish', async () => {
    const { handle } = await dex.startTask('T-ai-down', { gates: { afterVerify: modelGate } });
    const call = `${handle.workflowId}/implement/1/gate#1`;
    for (let i = 0; i < 3; i++) dex.fake.injectFault({ status: 500, match: { call } });
    const waiting = await waitForGate(handle, GATE);
    expect(waiting.waitingFor?.reason).toMatch(/^the gate's model failed: .*500/);
    expect(dex.requestsFor('T-ai-down').filter((r) => r.headers['x-dex-phase'] === GATE)).toHaveLength(3);
    await handle.signal('approve', { by: 'ana' });
    expect(((await handle.result()) as TaskResult).state).toBe('completed');
  });
});
