import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { TaskResult } from '../../../core/task/task-types';
import type { RunStatus } from '../../../core/run/run-types';
import { completionTurn, inPhase, toolTurn } from '../../support/model/cassette-builder';
import { useDexEnvironment, waitForGate } from '../../support/env/dex-environment';
import { commitsOnBranch } from '../../support/env/dev-server-env';
import { runDex } from '../../support/env/dex-cli';

const GATE = 'after-verify:implement';
/** A's change breaks the module: every test fails now, not only the one that failed on the base. */
const WRONG = { path: 'src/math.js', old_string: 'return a - b;', new_string: 'return a - b +;' };
const FIX = { path: 'src/math.js', old_string: 'return a - b;', new_string: 'return a + b;' };
/** B's fix comes with 60 lines of helpers nobody asked for. */
const HELPERS = { path: 'src/helpers.js', content: Array.from({ length: 60 }, (_, i) => `exports.h${i} = (x) => x + ${i};`).join('\n') + '\n' };
const review = (task: string, verdict: string) => inPhase(GATE, [toolTurn(task, ['gate_verdict', { verdict, findings: `${verdict}: looked at the diff` }])]);

/** A: a wrong fix, then gives up after verify fails twice; B: right, with a big change; C: right and small. */
const threeAttempts = (id: string) => [
  toolTurn(`${id}-A`, ['edit_file', WRONG]),
  completionTurn(`${id}-A`, { status: 'complete', summary: 'fixed' }),
  completionTurn(`${id}-A`, { status: 'complete', summary: 'fixed, surely' }),
  toolTurn(`${id}-B`, ['edit_file', FIX], ['write_file', HELPERS]),
  completionTurn(`${id}-B`, { status: 'complete', summary: 'adds, with helpers' }),
  ...review(`${id}-B`, 'approve'),
  toolTurn(`${id}-C`, ['edit_file', FIX]),
  completionTurn(`${id}-C`, { status: 'complete', summary: 'adds' }),
  ...review(`${id}-C`, 'approve'),
];

const dex = useDexEnvironment({ server: 'dev', cassette: [...threeAttempts('T-best'), ...threeAttempts('T-pick')], queue: 'dex-it-best-of' });

const modelReview = { by: 'model' as const, model: 'claude-haiku-4-5', onModelError: 'fail' as const };
const branchesOf = (repo: string) => execFileSync('git', ['branch', '--format=%(refname:short)'], { cwd: repo, encoding: 'utf8' }).split('\n').filter(Boolean);

describe('best of N: attempts at once, the best by evidence chosen', () => {
  it('A fails verify, B passes with a large diff, C with a small one and an approving review: C is chosen, A and B kept', async () => {
    const { repo, handle } = await dex.startTask('T-best', { attempts: { count: 3 }, gates: { afterVerify: modelReview }, maxIterations: 3 });
    const result = (await handle.result()) as TaskResult;
    expect(result.state, result.error).toBe('completed');
    expect(result.chosen).toMatchObject({ name: 'C', by: 'evidence' });
    expect(result.chosen!.reason).toMatch(/^3 tried, 2 passed, chose C: all tests pass, 1 fixed, 2 lines against 62, review approve, \$/);
    expect(result.branch).toBe(`dex/${handle.workflowId}-C`);
    const rows = Object.fromEntries(result.attempts!.map((r) => [r.name, r]));
    expect(rows.A).toMatchObject({ state: 'failed' });
    expect(rows.B).toMatchObject({ state: 'completed', evidence: { passed: true, testsFixed: [expect.stringContaining('sum adds two numbers')], lines: 62, files: 2, review: 'approve' } });
    expect(rows.C).toMatchObject({ state: 'completed', evidence: { passed: true, testsFixed: [expect.stringContaining('sum adds two numbers')], lines: 2, files: 1, review: 'approve' } });
    expect(rows.C.score!).toBeGreaterThan(rows.B.score!);
    // Every attempt's branch is kept; the chosen one holds only the small fix.
    expect(branchesOf(repo)).toEqual(expect.arrayContaining(['A', 'B', 'C'].map((n) => `dex/${handle.workflowId}-${n}`)));
    expect(execFileSync('git', ['show', `${result.branch}:src/math.js`], { cwd: repo, encoding: 'utf8' })).toContain('return a + b;');
    expect(commitsOnBranch(repo, result.branch)).toHaveLength(1);
    // The run's cost is all three attempts': the status says so too, with the table.
    const status = (await handle.query('status')) as RunStatus;
    expect(status.attempts?.map((r) => r.state)).toEqual(['failed', 'completed', 'completed']);
    expect(result.costUsd).toBeCloseTo(result.attempts!.reduce((sum, r) => sum + r.costUsd, 0), 8);
    expect(dex.requestsFor('T-best-A').length).toBe(3);
  });

  it('with choose: person the choice waits at the choose gate, and a person choosing B lands B', async () => {
    const { handle } = await dex.startTask('T-pick', { attempts: { count: 3, choose: 'person' }, gates: { afterVerify: modelReview }, maxIterations: 3 });
    dex.recordHistory(handle.workflowId, 'task-workflow-attempts.json');
    const waiting = await waitForGate(handle, 'choose');
    expect(waiting.waitingFor?.reason).toContain('chose C');
    await expect(handle.executeUpdate('decide', { args: [{ action: 'approve', choice: 'A' }] })).rejects.toMatchObject({ cause: { message: expect.stringMatching(/^no completed attempt A: A failed, B completed, C completed/) } });
    // As a person does it: the status's table, the attempt's diff, then the choice, each a dex command.
    const env = dex.cliEnv();
    const status = await runDex(['status', handle.workflowId], { env });
    expect(status.stdout).toMatch(/\*\s*C\b/);
    expect(status.stdout).toContain('dex choose');
    const diff = await runDex(['diff', handle.workflowId, 'B'], { env });
    expect(diff.stdout).toContain('src/helpers.js');
    const refused = await runDex(['choose', handle.workflowId, 'A'], { env });
    expect([refused.code, refused.stderr.trim().split('\n').length]).toEqual([2, 1]);
    const chose = await runDex(['choose', handle.workflowId, 'B', '--by', 'ana'], { env });
    expect(chose.code, chose.stderr).toBe(0);
    const result = (await handle.result()) as TaskResult;
    expect(result.state, result.error).toBe('completed');
    expect(result.chosen).toMatchObject({ name: 'B', by: 'ana' });
    expect(result.branch).toBe(`dex/${handle.workflowId}-B`);
  });
});
