import type { WorkflowHandle } from '@temporalio/client';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { costOf } from '../../../core/run/pricing';
import type { RoadmapResult } from '../../../core/roadmap/roadmap-types';
import type { RunStatus } from '../../../core/run/run-types';
import { completionTurn, inPhase, TEST_MODEL, toolTurn, usageTotals } from '../../support/model/cassette-builder';
import { failureOf, useDexEnvironment, waitForGate } from '../../support/env/dex-environment';
import { checkoutFile, roadmapRepo, startRoadmap, subjects } from '../../support/plans/roadmap-fixture';

const write = (task: string, path: string, content: string) => [
  toolTurn(task, ['write_file', { path, content }]),
  completionTurn(task, { status: 'complete', summary: `wrote ${path}` }),
];

const FIVE = {
  T1: write('T1', 'src/double.js', "const { sum } = require('./math');\nmodule.exports = { double: (a) => sum(a, a) };\n"),
  T2: write('T2', 'src/mul.js', 'module.exports = { mul: (a, b) => a * b };\n'),
  T3: write('T3', 'test/mul.test.js', "const test = require('node:test');\nconst assert = require('node:assert');\nconst { mul } = require('../src/mul');\ntest('mul', () => assert.strictEqual(mul(2, 3), 6));\n"),
  T4: write('T4', 'docs/notes.md', '# Notes\n'),
  T5: write('T5', 'src/sub.js', 'module.exports = { sub: (a, b) => a - b };\n'),
};

const FIVE_ROADMAP = `# Roadmap

- [ ] T1: Add double in src/double.js (weight: trivial)
- [ ] T2: Add mul in src/mul.js (depends: T1)
- [ ] T3: Test mul (depends: T2)
- [ ] T4: Write docs/notes.md
- [ ] T5: Add sub in src/sub.js
`;

const RETRY = [
  ...write('R1', 'src/mul.js', 'module.exports = { mul: (a, b) => a + b };\n'),
  ...inPhase('test', [completionTurn('R1', { status: 'blocked', reason: 'FAILURE: mul(2, 3) expected 6, got 5' })]),
  ...write('R1', 'src/mul.js', 'module.exports = { mul: (a, b) => a * b };\n'),
  ...inPhase('test', [completionTurn('R1', { status: 'complete', summary: 'mul is tested' })]),
];

const BUDGET = [...write('B1', 'src/mul.js', 'module.exports = { mul: (a, b) => a * b };\n')];

const REJECT = [
  completionTurn('J1', { status: 'blocked', reason: 'Should sum be removed?' }),
  ...write('J3', 'src/sub.js', 'module.exports = { sub: (a, b) => a - b };\n'),
];

const CONFLICT = [
  ...write('C1', 'src/shared.js', 'module.exports = 1;\n'),
  ...write('C2', 'src/shared.js', 'module.exports = 2;\n'),
];

const SLOW = [
  toolTurn('S1', ['write_file', { path: 'notes/one.md', content: 'one\n' }]),
  toolTurn('S1', ['write_file', { path: 'notes/two.md', content: 'two\n' }]),
  completionTurn('S1', { status: 'complete', summary: 'two notes' }),
];

const dex = useDexEnvironment({
  server: 'dev',
  cassette: [...Object.values(FIVE).flat(), ...RETRY, ...BUDGET, ...REJECT, ...CONFLICT, ...SLOW],
  queue: 'dex-it-roadmap',
});

const span = (task: string) => {
  const times = dex.requestsFor(task).map((r) => r.time);
  return [Math.min(...times), Math.max(...times)];
};

/** When each child task ran: from its start to its end as the roadmap's history recorded them. */
async function childRuns(handle: WorkflowHandle): Promise<Record<string, { start: number; end: number }>> {
  const runs: Record<string, { start: number; end: number }> = {};
  const ms = (t: unknown) => Number((t as { seconds: { toNumber(): number } }).seconds.toNumber()) * 1000 + ((t as { nanos?: number }).nanos ?? 0) / 1e6;
  for (const e of (await handle.fetchHistory()).events ?? []) {
    const started = e.childWorkflowExecutionStartedEventAttributes;
    const completed = e.childWorkflowExecutionCompletedEventAttributes;
    const id = (started ?? completed)?.workflowExecution?.workflowId?.split('-')[2];
    if (!id) continue;
    runs[id] ??= { start: 0, end: 0 };
    // The first run under an id is the task's; a later one is its finalize run (docs/roadmaps.md#finalize).
    if (started) runs[id].start ||= ms(e.eventTime);
    else runs[id].end ||= ms(e.eventTime);
  }
  return runs;
}

describe('roadmapWorkflow on a real dev server', () => {
  it('runs a chain and two independent tasks: overlap, ticked boxes, passing tests, one commit per verified phase', async () => {
    const repo = roadmapRepo(FIVE_ROADMAP, 'verify: ["node --test"]\nmaxParallel: 3\n');
    const { handle } = await startRoadmap(dex, repo);
    const result = (await handle.result()) as RoadmapResult;

    expect(result.state).toBe('completed');
    expect(result.tasks.map((t) => [t.id, t.state])).toEqual(['T1', 'T2', 'T3', 'T4', 'T5'].map((id) => [id, 'completed']));
    // Independent tasks ran at the same time as the chain's first task (child runs, from the roadmap's history).
    const runs = await childRuns(handle);
    for (const id of ['T4', 'T5']) {
      expect(runs[id].start).toBeLessThan(runs.T1.end);
      expect(runs[id].end).toBeGreaterThan(runs.T1.start);
    }
    // The chain ran in order, and its model calls too.
    expect(runs.T2.start).toBeGreaterThanOrEqual(runs.T1.end);
    expect(runs.T3.start).toBeGreaterThanOrEqual(runs.T2.end);
    expect(span('T2')[0]).toBeGreaterThan(span('T1')[1]);
    expect(span('T3')[0]).toBeGreaterThan(span('T2')[1]);

    expect(checkoutFile(repo, 'ROADMAP.md')).not.toContain('- [ ]');
    execFileSync('node', ['--test'], { cwd: repo, stdio: 'ignore' });
    const log = subjects(repo);
    for (const id of ['T1', 'T2', 'T3', 'T4', 'T5']) {
      expect(log.filter((s) => s.startsWith(`dex(${id}): implement:`))).toHaveLength(1);
      expect(log.filter((s) => s.startsWith(`dex: land ${id}:`))).toHaveLength(1);
    }
    const expected = usageTotals(Object.values(FIVE).flat());
    expect(result.tokens).toEqual(expected);
    expect(result.costUsd).toBeCloseTo(costOf(TEST_MODEL, expected), 10);
  });

  it("tells the roadmap a running task's spending between phases: calls within the hold after its last report share one", async () => {
    // The hold is 8 s here (`holdSpendingMs`; 30 s in `dex run`). The first call is answered at once,
    // the second 9 s after the phase began, the third is held while the test looks: only the second
    // is past the hold since the task's last report (docs/roadmaps.md#what-a-roadmap-shows-of-its-spending).
    const first = dex.fake.holdRequest({ task: 'S1' });
    const repo = roadmapRepo('- [ ] S1: Write two notes\n', 'verify: ["node --test"]\nverifyBaseline: false\n');
    const { handle } = await startRoadmap(dex, repo, 'anthropic', { holdSpendingMs: 8_000 });
    await first.reached;
    const second = dex.fake.holdRequest({ task: 'S1' });
    first.release();
    await second.reached;
    const third = dex.fake.holdRequest({ task: 'S1' });
    // Workflow time must pass for the hold to end; nothing else could stand in for it.
    await new Promise((resolve) => setTimeout(resolve, 9_000));
    second.release();
    await third.reached;

    const status = await handle.query<RunStatus>('status');
    const taskId = (status.tasks![0] as { workflowId?: string }).workflowId!;
    dex.recordHistory(taskId, 'task-workflow-spending.json');
    const task = await dex.client.workflow.getHandle(taskId).query<RunStatus>('status');
    const twoCalls = usageTotals(SLOW.slice(0, 2));
    expect(task.tokens).toEqual(twoCalls);
    expect(status.tokens).toEqual(twoCalls);
    expect(status.costUsd).toBeCloseTo(costOf(TEST_MODEL, twoCalls), 10);
    // DexCostUsd follows a working run's cost at most once a minute (workflows/run/run-publisher.ts); at a gate it is
    // exact at once (test/integration/task/budget-reservation.integration.test.ts). It never runs ahead of what was spent.
    expect((await handle.describe()).searchAttributes.DexCostUsd![0] as number).toBeLessThanOrEqual(costOf(TEST_MODEL, twoCalls));
    // The phase's start, then one report for both calls: the first was held back.
    const updates = ((await handle.fetchHistory()).events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'taskUpdate');
    expect(updates).toHaveLength(2);

    third.release();
    expect(((await handle.result()) as RoadmapResult).costUsd).toBeCloseTo(costOf(TEST_MODEL, usageTotals(SLOW)), 10);
  }, 120_000);

  it('sends a failing test phase back to implement, whose next request holds the failure output', async () => {
    const repo = roadmapRepo('- [ ] R1: Add mul with a test (weight: small)\n', 'verify: ["node --test"]\nmaxRetries: 2\n');
    const { handle } = await startRoadmap(dex, repo);
    const result = (await handle.result()) as RoadmapResult;
    expect(result.state).toBe('completed');
    const phases = dex.requestsFor('R1').map((r) => r.headers['x-dex-phase']);
    expect(phases).toEqual(['implement', 'implement', 'test', 'implement', 'implement', 'test']);
    const retried = JSON.stringify(dex.requestsFor('R1')[3].body!.messages);
    expect(retried).toContain('FAILURE: mul(2, 3) expected 6, got 5');
    expect(retried).toContain('The test phase failed');
    expect(JSON.stringify(dex.requestsFor('R1')[2].body!.messages)).toContain('Test phase:');
  });

  it('waits in budget_exceeded until approve raises the budget, then finishes with exact totals', async () => {
    const repo = roadmapRepo('- [ ] B1: Add mul\n', 'verify: ["node --test"]\nbudgets:\n  task: { usd: 0.0001 }\n');
    const { handle } = await startRoadmap(dex, repo);
    const waiting = await waitForGate(handle, 'budget');
    expect(waiting.state).toBe('budget_exceeded');
    expect(waiting.waitingFor).toMatchObject({ gate: 'budget', taskId: 'B1' });
    // The first call's worst case does not fit $0.0001: it waits before the call, not after.
    expect(waiting.waitingFor?.reason).toContain('may cost up to');
    expect(dex.requestsFor('B1')).toHaveLength(0);

    dex.recordHistory(handle.workflowId, 'roadmap-workflow-budget.json');
    await handle.signal('approve', { budgetUsd: 5, by: 'ana' });
    const result = (await handle.result()) as RoadmapResult;
    expect(result.state).toBe('completed');
    expect(result.tokens).toEqual(usageTotals(BUDGET));
    expect(result.costUsd).toBeCloseTo(costOf(TEST_MODEL, usageTotals(BUDGET)), 10);
  });

  it('skips the dependents of a rejected task, naming it, and finishes the independent ones', async () => {
    const roadmap = '- [ ] J1: Remove sum\n- [ ] J2: Use the new sum (depends: J1)\n- [ ] J4: After J2 (depends: J2)\n- [ ] J3: Add sub\n';
    const repo = roadmapRepo(roadmap, 'verify: ["node --test"]\n');
    const { handle } = await startRoadmap(dex, repo);
    await waitForGate(handle, { gate: 'blocked', taskId: 'J1' });
    await handle.signal('reject', { reason: 'keep sum' });

    const cause = await failureOf(handle);
    const result = cause.details?.[0] as RoadmapResult;
    const byId = Object.fromEntries(result.tasks.map((t) => [t.id, t]));
    expect(byId.J1.state).toBe('rejected');
    expect(byId.J2).toMatchObject({ state: 'skipped', blockedBy: 'J1' });
    expect(byId.J4).toMatchObject({ state: 'skipped', blockedBy: 'J1' });
    expect(byId.J3.state).toBe('completed');
    expect(checkoutFile(repo, 'ROADMAP.md')).toContain('- [x] J3: Add sub');
  });

  it('waits at the merge gate when a branch does not merge cleanly; reject fails that task, the base stays clean', async () => {
    const repo = roadmapRepo('- [ ] C1: Write shared one\n- [ ] C2: Write shared two\n', 'verify: ["node --test"]\nmaxParallel: 2\n');
    const { handle } = await startRoadmap(dex, repo);
    const waiting = await waitForGate(handle, 'merge');
    // Whichever finished second cannot land on top of the first.
    const second = waiting.waitingFor!.taskId!;
    const first = second === 'C1' ? 'C2' : 'C1';
    expect(waiting.waitingFor!.reason).toContain('merge conflict in src/shared.js');
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: repo, encoding: 'utf8' })).toBe('');

    await handle.signal('reject', { reason: 'resolve it by hand later' });
    const result = (await failureOf(handle)).details?.[0] as RoadmapResult;
    expect(Object.fromEntries(result.tasks.map((t) => [t.id, t.state]))).toEqual({ [first]: 'completed', [second]: 'failed' });
    expect(checkoutFile(repo, 'src/shared.js')).toBe(`module.exports = ${first.slice(1)};\n`);
    expect(checkoutFile(repo, 'ROADMAP.md')).toContain(`- [x] ${first}`);
    expect(checkoutFile(repo, 'ROADMAP.md')).toContain(`- [ ] ${second}`);
  });
});
