import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RoadmapInput, RoadmapResult } from '../../../core/roadmap/roadmap-types';
import { HISTORY_LIMIT } from '../../../core/run/history-limit';
import { completionTurn, toJsonl } from '../../support/model/cassette-builder';
import { chainOf, type Event } from '../../support/env/chain-history';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { checkoutFile, roadmapRepo, startRoadmap, subjects } from '../../support/plans/roadmap-fixture';

// docs/roadmaps.md#long-roadmaps
const dex = useDexEnvironment({ server: 'dev', queue: 'dex-it-can' });

/** Tasks started in a history: each task's child, and the finalize runs of those that were behind the base. */
const childStarts = (events: Event[]) => events.filter((e) => e.startChildWorkflowExecutionInitiatedEventAttributes).length;

/**
 * Runs a roadmap of `tasks` one-phase tasks in chains of three (T1 ← T2 ← T3, T4 ← T5 ← T6 …),
 * `config` its dex.config.yaml, to its end; checks that every task landed exactly once, and
 * returns the workflow's handle and every run of its chain, their lengths logged.
 */
async function landAll(tasks: number, config: string, extra: Pick<RoadmapInput, 'historyLimit'> = {}) {
  const roadmap = Array.from({ length: tasks }, (_, i) => `- [ ] T${i + 1}: Step ${i + 1}${i % 3 ? ` (depends: T${i})` : ''}`).join('\n');
  const repo = roadmapRepo(`${roadmap}\n`, `verify: []\nmaxParallel: 4\n${config}`);
  const cassette = join(mkdtempSync(join(tmpdir(), 'dex-can-')), 'answers.jsonl');
  writeFileSync(cassette, toJsonl(Array.from({ length: tasks }, (_, i) => completionTurn('*', { status: 'complete', summary: `step ${i + 1}` }))));

  const { handle } = await startRoadmap(dex, repo, `replay:${cassette}`, extra);
  const result = (await handle.result()) as RoadmapResult;

  expect(result.state).toBe('completed');
  expect(result.tasks.filter((t) => t.state === 'completed')).toHaveLength(tasks);
  expect(checkoutFile(repo, 'ROADMAP.md')).not.toContain('- [ ]');
  const landed = subjects(repo).filter((s) => s.startsWith('dex: land '));
  expect(landed).toHaveLength(tasks);
  expect(new Set(landed).size).toBe(tasks);

  const runs = await chainOf(dex.client, handle.workflowId, handle.firstExecutionRunId);
  expect(result.runs).toBe(runs.length);
  const lengths = runs.map((events) => events.length);
  const perTask = lengths.reduce((a, b) => a + b, 0) / tasks;
  console.log(`${tasks} tasks (${config.trim()}): ${runs.length} runs, history lengths ${lengths.join(', ')}; children ${runs.map(childStarts).join(', ')}; ${perTask.toFixed(1)} events per task over the chain`);
  return { handle, runs, lengths };
}

// 12 tasks in runs of 4 show what 60 in runs of 20 did (three runs or more, chains of three crossing
// each boundary, tasks in flight when a run drains), in a fifth of the time: a task costs ~1.7 s here, most of it git.
describe('a 12-task roadmap', () => {
  it('continues as new, carrying its state, and lands every task exactly once', async () => {
    const { handle, runs, lengths } = await landAll(12, 'continueAsNewAfterTasks: 4\n');
    expect(runs.length).toBeGreaterThanOrEqual(3);
    for (const length of lengths) expect(length).toBeLessThan(HISTORY_LIMIT);
    const first = await dex.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId).describe();
    expect(first.status.name).toBe('CONTINUED_AS_NEW');
  }, 300_000);
});

describe('a roadmap whose history limit comes before continueAsNewAfterTasks', () => {
  it('continues as new by its history check, each run under the limit, and lands every task exactly once', async () => {
    const limit = 340;
    const { handle, runs, lengths } = await landAll(12, 'continueAsNewAfterTasks: 1000\n', { historyLimit: limit });
    dex.recordHistory(handle.workflowId, 'roadmap-workflow-history-limit.json', handle.firstExecutionRunId);

    // Far from 1,000 tasks and from Temporal's suggestion (about 4,100 events): only the history check continued it.
    expect(runs.length).toBeGreaterThanOrEqual(3);
    for (const length of lengths) expect(length).toBeLessThanOrEqual(limit);
    for (const events of runs.slice(0, -1)) expect(events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();
    // Each run started tasks, so the chain moved on every time.
    for (const events of runs) expect(childStarts(events)).toBeGreaterThan(0);
  }, 300_000);
});
