import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { RoadmapResult } from '../../../core/roadmap/roadmap-types';
import type { RunStatus } from '../../../core/run/run-types';
import { costOf } from '../../../core/run/pricing';
import { completionTurn, TEST_MODEL, toolTurn, usageTotals } from '../../support/model/cassette-builder';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { checkoutFile, roadmapRepo, startRoadmap, subjects } from '../../support/plans/roadmap-fixture';

/** Attempt `name` writes src/double.js with `extra` lines of comment: A the most, C none. */
const writes = (name: string, extra: number, task = 'T1') => [
  toolTurn(`${task}-${name}`, ['write_file', { path: 'src/double.js', content: `${'// note\n'.repeat(extra)}const { sum } = require('./math');\nmodule.exports = { double: (a) => sum(a, a) };\n` }]),
  completionTurn(`${task}-${name}`, { status: 'complete', summary: `double, ${extra} notes` }),
];

const T2_LINES = [...writes('A', 5, 'T2'), ...writes('B', 0, 'T2')];

const dex = useDexEnvironment({ server: 'time-skipping', cassette: [...writes('A', 40), ...writes('B', 10), ...writes('C', 0), ...T2_LINES], queue: 'dex-ts-attempts' });

const ROADMAP = '# Roadmap\n\n- [ ] T1: Add double in src/double.js (attempts: 3)\n';
const CONFIG = 'verify: ["node --test"]\nattempts:\n  count: 2\n  choose: person\n';

/** The roadmap's status once its task T1 waits at `gate`. */
async function waitingAt(handle: { query: (q: string) => Promise<unknown> }, gate: string): Promise<RunStatus> {
  for (;;) {
    // Before its first workflow task the run has no status handler yet.
    const status = (await handle.query('status').catch(() => undefined)) as RunStatus | undefined;
    if (status?.waitingFor?.gate === gate) return status;
    if (status && ['completed', 'failed'].includes(status.state)) throw new Error(`the roadmap ended ${status.state} before ${gate}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('best of N in a roadmap, on the time-skipping server', () => {
  it('a task line asks for 3 attempts; a person chooses B a day later, and B is what lands', async () => {
    const repo = roadmapRepo(ROADMAP, CONFIG);
    const { handle } = await startRoadmap(dex, repo);
    const waiting = await waitingAt(handle, 'choose');
    expect(waiting.waitingFor).toMatchObject({ taskId: 'T1' });
    expect(waiting.waitingFor?.reason, waiting.waitingFor?.reason).toMatch(/^3 tried, 3 passed, chose C: all tests pass, 2 lines against 42, 12, \$/);
    const before = await dex.env.currentTimeMs();
    await dex.env.sleep('24h');
    await handle.executeUpdate('decide', { args: [{ action: 'approve', taskId: 'T1', choice: 'B', by: 'ana' }] });
    const result = (await handle.result()) as RoadmapResult;
    expect(result.state).toBe('completed');
    expect((await dex.env.currentTimeMs()) - before).toBeGreaterThanOrEqual(24 * 3600_000);
    // B's file landed: ten notes, the roadmap's box ticked.
    expect(checkoutFile(repo, 'src/double.js').match(/\/\/ note/g)).toHaveLength(10);
    expect(checkoutFile(repo, 'ROADMAP.md')).toContain('- [x] T1');
    expect(subjects(repo).filter((s) => s.startsWith('dex: land T1'))).toHaveLength(1);
    execFileSync('node', ['--test'], { cwd: repo, stdio: 'ignore' });
  });
});

describe('the roadmap budget covers the attempts', () => {
  it("a task's attempts are reserved from the run budget before the first starts, and the roadmap's cost is theirs", async () => {
    const repo = roadmapRepo('# Roadmap\n\n- [ ] T2: Add double in src/double.js (attempts: 2)\n', 'verify: ["node --test"]\nbudgets:\n  task: { usd: 0.3 }\n  run: { usd: 1 }\n');
    const { handle } = await startRoadmap(dex, repo);
    const result = (await handle.result()) as RoadmapResult;
    expect(result.state).toBe('completed');
    expect(checkoutFile(repo, 'src/double.js')).not.toContain('// note');
    const { events } = await handle.fetchHistory();
    const requests = (events ?? []).flatMap((e) => {
      const signal = e.workflowExecutionSignaledEventAttributes;
      return signal?.signalName === 'budgetRequest' ? [JSON.parse(Buffer.from(signal.input!.payloads![0].data!).toString('utf8')) as { taskId: string; usd: number }] : [];
    });
    // One request, of the task's whole budget, before any attempt asked its parent for a grant.
    expect(requests.map((r) => [r.taskId, r.usd])).toEqual([['T2', 0.3]]);
    const spent = costOf(TEST_MODEL, usageTotals(T2_LINES));
    expect(result.costUsd).toBeCloseTo(spent, 8);
  });
});
