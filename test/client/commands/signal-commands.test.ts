import { describe, expect, it } from 'vitest';
import { choiceProblem } from '../../../client/commands/signal-commands';
import type { AttemptRow } from '../../../core/task/attempts';
import { runDex } from '../../support/env/dex-cli';

// The real `dex` binary. TEMPORAL_ADDRESS is a dead port: a command that got past its arguments
// would exit 3 when it connects, so exit 2 proves it stopped at them.
const dex = (...args: string[]) => runDex(args, { env: { TEMPORAL_ADDRESS: '127.0.0.1:1', DEX_HOME: '/nonexistent/dex-home' }, timeoutMs: 60_000 });

const rows: AttemptRow[] = [
  { name: 'A', workflowId: 'w-A', state: 'completed', costUsd: 0.1 },
  { name: 'B', workflowId: 'w-B', state: 'failed', costUsd: 0.1 },
  { name: 'C', workflowId: 'w-C', state: 'completed', costUsd: 0.1 },
];
const at = (gate: string | undefined) => ({ waitingFor: gate ? { gate, since: '2025-01-01T00:00:00Z' } : null, attempts: rows });

describe('dex choose ID ATTEMPT (docs/attempts.md#the-choose-gate)', () => {
  it('may choose a completed attempt of a task waiting at its choose gate', () => {
    expect(choiceProblem(at('choose'), 'A')).toBeUndefined();
    expect(choiceProblem(at('choose'), 'C')).toBeUndefined();
  });

  it('says why not: the run waits elsewhere or at nothing, or the attempt did not complete or does not exist', () => {
    expect(choiceProblem(at('blocked'), 'A')).toBe('it does not wait at gate "choose" (it waits at gate "blocked": dex approve or dex reject answers it)');
    expect(choiceProblem(at(undefined), 'A')).toBe('it does not wait at gate "choose" (it waits at no gate)');
    expect(choiceProblem(at('choose'), 'B')).toBe('attempt B is not one of its completed attempts (A, C; B is failed)');
    expect(choiceProblem(at('choose'), 'D')).toBe('attempt D is not one of its completed attempts (A, C)');
    expect(choiceProblem({ ...at('choose'), attempts: undefined }, 'A')).toBe('attempt A is not one of its completed attempts (none completed)');
  });

  it.concurrent.each([
    [['choose'], /expected a run id and an attempt's letter: dex choose ID ATTEMPT/],
    [['choose', 'task-math-fix-1'], /expected a run id and an attempt's letter/],
    [['choose', 'task-math-fix-1', 'B', 'C'], /expected a run id and an attempt's letter/],
    [['choose', 'task-math-fix-1', 'BB'], /an attempt is one letter \(A, B, …\), not "BB"/],
    [['choose', 'task-math-fix-1', '2'], /an attempt is one letter/],
    [['choose', 'task-math-fix-1', 'B', '--reason', 'x'], /Unknown option '--reason'/],
  ])('dex %j exits 2 with one line, before it connects', async (args, problem) => {
    const run = await dex(...args);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(problem);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('gets past its arguments with every option its help documents (to the dead server: exit 3)', async () => {
    const run = await dex('choose', 'task-math-fix-1', 'b', '--by', 'ana', '--note', 'smaller', '--task', 'T1');
    expect(run.code, run.stderr).toBe(3);
  });
});
