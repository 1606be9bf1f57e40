import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RoadmapResult } from '../core/roadmap/roadmap-types';
import { completionTurn, toJsonl } from './cassette-builder';
import { useDexEnvironment } from './dex-environment';
import { checkoutFile, roadmapRepo, startRoadmap, subjects } from './roadmap-fixture';

const TASKS = 60;

const dex = useDexEnvironment({ server: 'dev', queue: 'dex-it-can' });

describe('a 60-task roadmap', () => {
  it('continues as new, carrying its state, and lands every task exactly once', async () => {
    const roadmap = Array.from({ length: TASKS }, (_, i) => `- [ ] T${i + 1}: Step ${i + 1}${i % 3 ? ` (depends: T${i})` : ''}`).join('\n');
    const repo = roadmapRepo(`${roadmap}\n`, 'verify: []\nmaxParallel: 4\ncontinueAsNewAfterTasks: 20\n');
    const cassette = join(mkdtempSync(join(tmpdir(), 'dex-can-')), 'answers.jsonl');
    writeFileSync(cassette, toJsonl(Array.from({ length: TASKS }, (_, i) => completionTurn('*', { status: 'complete', summary: `step ${i + 1}` }))));

    const { handle } = await startRoadmap(dex, repo, `replay:${cassette}`);
    const result = (await handle.result()) as RoadmapResult;

    expect(result.state).toBe('completed');
    expect(result.runs).toBeGreaterThanOrEqual(2);
    expect(result.tasks.filter((t) => t.state === 'completed')).toHaveLength(TASKS);
    expect(checkoutFile(repo, 'ROADMAP.md')).not.toContain('- [ ]');
    const landed = subjects(repo).filter((s) => s.startsWith('dex: land '));
    expect(landed).toHaveLength(TASKS);
    expect(new Set(landed).size).toBe(TASKS);
    const first = await dex.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId).describe();
    expect(first.status.name).toBe('CONTINUED_AS_NEW');
  }, 300_000);
});
