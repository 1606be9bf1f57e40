import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { loadDexConfig } from '../../../client/config/config-file';
import { completionTurn, fixSumTurns, inPhase } from '../../support/model/cassette-builder';
import { failureOf, useDexEnvironment, waitForGate } from '../../support/env/dex-environment';

/** The default of `maxRetries` as a repository without the key gets it. */
const DEFAULT_RETRIES = loadDexConfig(mkdtempSync(`${tmpdir()}/dex-config-`)).maxRetries;
const FINDING = { status: 'blocked', reason: 'sum(-1, 1) is untested' };

const dex = useDexEnvironment({
  server: 'time-skipping',
  cassette: [
    // T-checks: every test phase finds a problem, so implement goes round again while retries last.
    ...fixSumTurns('T-checks'),
    ...Array.from({ length: DEFAULT_RETRIES }, () => completionTurn('T-checks', { status: 'complete', summary: 'nothing more to change' })),
    ...inPhase('test', Array.from({ length: DEFAULT_RETRIES + 1 }, () => completionTurn('T-checks', FINDING))),
    // T-reject-ends and T-reject-retry: the implement phase waits at its after-verify gate.
    ...fixSumTurns('T-reject-ends'),
    // Its retry starts again from the base commit (nothing was committed before the gate).
    ...fixSumTurns('T-reject-retry'),
    ...fixSumTurns('T-reject-retry'),
  ],
  queue: 'dex-ts-retries',
});

const phasesOf = (task: string) => dex.requestsFor(task).map((r) => r.headers['x-dex-phase']);

describe('retries as note 001 has them, on the time-skipping test server', () => {
  it('defaults maxRetries to 3', () => {
    expect(DEFAULT_RETRIES).toBe(3);
  });

  it('sends a failing test phase back to implement 3 times by default, then fails, after 1/2/4 s durable waits', async () => {
    const { handle } = await dex.startTask('T-checks', { phases: ['implement', 'test'], maxRetries: DEFAULT_RETRIES });
    const cause = await failureOf(handle);
    expect(cause.type).toBe('TaskFailed');
    expect(phasesOf('T-checks')).toEqual(['implement', 'implement', 'implement', 'test', 'implement', 'test', 'implement', 'test', 'implement', 'test']);
    // Each retry of implement is told what the test phase found.
    const retried = JSON.stringify(dex.requestsFor('T-checks')[4].body!.messages);
    expect(retried).toContain('sum(-1, 1) is untested');

    const timers = ((await handle.fetchHistory()).events ?? [])
      .map((e) => e.timerStartedEventAttributes?.startToFireTimeout?.seconds)
      .filter((s) => s !== undefined && s !== null)
      .map(Number);
    // 1 s, 2 s, 4 s with ±10% jitter: whole seconds 0–1, 1–2, 3–4.
    expect(timers).toHaveLength(DEFAULT_RETRIES);
    expect(timers[0]).toBeLessThanOrEqual(1);
    expect(timers[1]).toBeGreaterThanOrEqual(1);
    expect(timers[1]).toBeLessThanOrEqual(2);
    expect(timers[2]).toBeGreaterThanOrEqual(3);
    expect(timers[2]).toBeLessThanOrEqual(4);
  });

  it('ends the task at a reject without retry, even with retries left', async () => {
    const { handle } = await dex.startTask('T-reject-ends', { maxRetries: 3, gates: { afterVerify: {} } });
    await waitForGate(handle, 'after-verify:implement');
    await handle.signal('reject', { reason: 'not what I asked for' });
    const cause = await failureOf(handle);
    expect(cause.type).toBe('TaskRejected');
    expect(cause.message).toContain('not what I asked for');
    expect(phasesOf('T-reject-ends')).toHaveLength(3);
  });

  it('reruns the phase with the reason at a reject with retry: true (the stock CLI payload form)', async () => {
    const { handle } = await dex.startTask('T-reject-retry', { maxRetries: 3, gates: { afterVerify: {} } });
    await waitForGate(handle, 'after-verify:implement');
    await handle.signal('reject', { reason: 'also say so in the commit', retry: true });
    await waitForGate(handle, 'after-verify:implement');
    await handle.signal('approve');
    const result = await handle.result();
    expect(result.state).toBe('completed');
    const requests = dex.requestsFor('T-reject-retry');
    expect(requests).toHaveLength(6);
    expect(JSON.stringify(requests[3].body!.messages)).toContain('The implement phase was rejected: also say so in the commit');
  });
});
