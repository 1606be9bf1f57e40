import { describe, expect, it } from 'vitest';
import { runDetails } from '../../../workflows/run/run-details';
import type { RunStatus } from '../../../core/run/run-types';
import { ZERO_USAGE } from '../../../core/run/usage';

const status: RunStatus = { kind: 'task', state: 'running', waitingFor: null, current: { phase: 'implement' }, tokens: ZERO_USAGE, costUsd: 0.1, checks: 'lint passed' };

describe("a run's details in the Web UI", () => {
  it("add a best-of-N task's attempts as a Markdown table after its checks, and nothing for any other run (docs/attempts.md)", () => {
    const plain = runDetails(status, 'task-math-fix-1');
    expect(plain).not.toContain('attempt');
    const attempts: RunStatus['attempts'] = [
      { name: 'A', workflowId: 'task-math-fix-1-A', state: 'running', costUsd: 0.04, variant: 'temperature 1' },
      { name: 'B', workflowId: 'task-math-fix-1-B', state: 'completed', costUsd: 0.06, evidence: { passed: true, testsFixed: [], testsBroken: [], checksFailed: [], lines: 4, files: 1 }, score: -0.26 },
    ];
    const details = runDetails({ ...status, attempts }, 'task-math-fix-1');
    expect(details).toContain(
      [
        'checks: lint passed',
        'attempts: 2, 1 running, 1 completed',
        '| attempt | state | variant | tests | checks | lines | review | cost | score |\n|---|---|---|---|---|---|---|---|---|\n' +
          '| A | running | temperature 1 | — | — | — | — | $0.0400 | — |\n| B | completed | as configured | pass | pass | 4 | — | $0.0600 | -0.26 |',
      ].join('\n\n'),
    );
    expect(details.startsWith(plain.split('\n\n')[0])).toBe(true);
  });

  it('name `dex choose` among the answers of a task waiting at its choose gate', () => {
    const waiting = runDetails({ ...status, state: 'waiting', waitingFor: { gate: 'choose', since: '2025-01-01T00:00:00Z', reason: 'chose B' } }, 'task-math-fix-1');
    expect(waiting).toContain('    dex choose task-math-fix-1 ATTEMPT');
    expect(waiting).toContain(`--name approve --input '{"choice":"B"}'`);
  });
});
