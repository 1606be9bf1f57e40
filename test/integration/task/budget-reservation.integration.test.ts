import { describe, expect, it } from 'vitest';
import type { CassetteLine } from '../../../core/parsing/cassette';
import { costOf } from '../../../core/run/pricing';
import type { RoadmapResult } from '../../../core/roadmap/roadmap-types';
import type { RunStatus } from '../../../core/run/run-types';
import { completionTurn, TEST_MODEL, toolTurn, usageTotals } from '../../support/model/cassette-builder';
import { useDexEnvironment, waitForGate } from '../../support/env/dex-environment';
import { roadmapRepo, startRoadmap } from '../../support/plans/roadmap-fixture';

const TASKS = ['P1', 'P2', 'P3', 'P4'];
const LINES: Record<string, CassetteLine[]> = Object.fromEntries(
  TASKS.map((id) => [
    id,
    [
      toolTurn(id, ['write_file', { path: `notes/${id}.md`, content: `# ${id}\n` }]),
      completionTurn(id, { status: 'complete', summary: `wrote notes/${id}.md` }),
    ],
  ]),
);

const dex = useDexEnvironment({ server: 'dev', cassette: Object.values(LINES).flat(), queue: 'dex-it-budget-reservation' });

/** The dearest single model call of the cassette, in USD: how far a roadmap's figure may trail its tasks' (a call in flight). */
const ONE_CALL = Math.max(...Object.values(LINES).flat().map((l) => costOf(TEST_MODEL, usageTotals([l]))));

/** What each task of the roadmap says it spent (its own `status` query), added up. */
async function tasksSay(status: RunStatus): Promise<{ costUsd: number; tokens: number }> {
  let costUsd = 0;
  let tokens = 0;
  for (const t of status.tasks ?? []) {
    const workflowId = (t as { workflowId?: string }).workflowId;
    if (!workflowId) continue;
    const own = await dex.client.workflow.getHandle(workflowId).query<RunStatus>('status');
    costUsd += own.costUsd;
    tokens += Object.values(own.tokens).reduce((a, b) => a + b, 0);
  }
  return { costUsd, tokens };
}

/** What the fake server has answered so far, in USD: each task's first k cassette lines for its k requests. */
function spentAtFake(): number {
  return TASKS.reduce((sum, id) => sum + costOf(TEST_MODEL, usageTotals(LINES[id].slice(0, dex.requestsFor(id).length))), 0);
}

describe('budgets by reservation', () => {
  it('four parallel tasks never together pass the run budget; the run waits in budget_exceeded until approve raises it', async () => {
    const RUN_BUDGET = 0.06;
    const roadmap = TASKS.map((id) => `- [ ] ${id}: Write notes/${id}.md (weight: trivial)`).join('\n') + '\n';
    // No baseline runs: four tasks' verifies are load enough for what this test is about.
    const config = `verify: ["node --test"]\nverifyBaseline: false\nmaxParallel: 4\nmaxTokens: 1024\nbudgets:\n  run: { usd: ${RUN_BUDGET} }\n`;
    const repo = roadmapRepo(roadmap, config);
    const { handle } = await startRoadmap(dex, repo);
    dex.recordHistory(handle.workflowId, 'roadmap-workflow-run-budget.json');

    const waiting = await waitForGate(handle, 'budget');
    expect(waiting.state).toBe('budget_exceeded');
    expect(waiting.waitingFor?.reason).toMatch(/needs up to \$[\d.]+ more/);
    // The tasks that hold grants go on until theirs run out too; then nothing moves until a person decides.
    const calls = () => TASKS.reduce((n, id) => n + dex.requestsFor(id).length, 0);
    for (let seen = -1; seen !== calls(); ) {
      seen = calls();
      await new Promise((resolve) => setTimeout(resolve, 3000));
    }
    expect((await handle.query<RunStatus>('status')).state).toBe('budget_exceeded');
    // Every call made was reserved at its worst case first: together they fit the budget.
    const atGate = spentAtFake();
    expect(atGate).toBeGreaterThan(0);
    expect(atGate).toBeLessThanOrEqual(RUN_BUDGET);
    expect((await handle.query<RunStatus>('status')).costUsd).toBeLessThanOrEqual(RUN_BUDGET);
    // Not all eight calls could be reserved under it.
    expect(calls()).toBeLessThan(8);
    // The moment a person decides on more budget, the roadmap shows what its tasks have spent
    // (docs/roadmaps.md#budgets-and-runaway-protection): the same as they say, within a call in flight.
    const atTheGate = await handle.query<RunStatus>('status');
    const tasks = await tasksSay(atTheGate);
    console.log(`at the budget gate: roadmap $${atTheGate.costUsd}, its tasks $${tasks.costUsd}, the fake answered $${atGate}, one call $${ONE_CALL}`);
    expect(tasks.costUsd).toBeGreaterThan(0);
    expect(Math.abs(atTheGate.costUsd - tasks.costUsd)).toBeLessThanOrEqual(ONE_CALL);
    expect(Object.values(atTheGate.tokens).reduce((a, b) => a + b, 0)).toBe(tasks.tokens);
    const { searchAttributes } = await handle.describe();
    expect((searchAttributes.DexCostUsd as number[])[0]).toBeCloseTo(atTheGate.costUsd, 4);

    await handle.signal('approve', { budgetUsd: 1, by: 'ana' });
    const result = (await handle.result()) as RoadmapResult;
    expect(result.state).toBe('completed');
    expect(result.tasks.map((t) => t.state)).toEqual(['completed', 'completed', 'completed', 'completed']);
    expect(result.costUsd).toBeCloseTo(spentAtFake(), 10);
  }, 240_000);
});
