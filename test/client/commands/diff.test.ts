import { describe, expect, it } from 'vitest';
import { runDex } from '../../support/env/dex-cli';

// The real `dex` binary. TEMPORAL_ADDRESS is a dead port: a command that got past its arguments
// would exit 3 when it connects, so exit 2 proves it stopped at them.
const dex = (...args: string[]) => runDex(args, { env: { TEMPORAL_ADDRESS: '127.0.0.1:1', DEX_HOME: '/nonexistent/dex-home' }, timeoutMs: 60_000 });

describe('dex diff ID [ATTEMPT] (docs/attempts.md#seeing-the-attempts)', () => {
  it.concurrent.each([
    [['diff'], /expected a run id, and an attempt's letter or nothing: dex diff ID \[ATTEMPT\]/],
    [['diff', 'task-math-fix-1', 'B', 'C'], /expected a run id, and an attempt's letter or nothing/],
    [['diff', 'task-math-fix-1', 'AB'], /an attempt is one letter \(A, B, …\), not "AB"/],
  ])('dex %j exits 2 with one line, before it connects', async (args, problem) => {
    const run = await dex(...args);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(problem);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });

  it.concurrent.each([[['diff', 'task-math-fix-1']], [['diff', 'task-math-fix-1', 'b']]])('dex %j gets past its arguments (to the dead server: exit 3)', async (args) => {
    expect((await dex(...args)).code).toBe(3);
  });
});
