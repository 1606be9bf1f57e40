import { describe, expect, it } from 'vitest';
import { progressLine } from '../../../client/run/progress-lines';
import { renderRoadmapResult } from '../../../client/render/render-roadmap';
import { renderTaskResult } from '../../../client/render/render-task';
import { renderRunList } from '../../../client/render/run-list';
import { describeTaskEnd } from '../../../client/render/task-end';
import { costOf } from '../../../core/run/pricing';
import type { RunStatus, TokenUsage } from '../../../core/run/run-types';
import { addUsd, roundUsd, tokensIn } from '../../../core/run/usage';
import type { TaskResult } from '../../../core/task/task-types';
import { formatUsd, tokensDetail, tokensText } from '../../../core/text/spending';
import { runDetails } from '../../../workflows/run/run-details';

/** The demo's spending: most of the prompt came from the prompt cache. */
const demo: TokenUsage = { input: 1630, output: 290, cacheRead: 4608, cacheWrite: 1536 };

const result: TaskResult = { taskId: 'fix-sum', state: 'completed', branch: 'dex/x', turns: 4, tokens: demo, costUsd: 0.0099, verifyPassed: true };
const status: RunStatus = { kind: 'task', state: 'running', waitingFor: null, current: { taskId: 'fix-sum', phase: 'implement' }, tokens: demo, costUsd: 0.0099 };

describe('one meaning of "in" (docs/interfaces.md#what-a-run-spent)', () => {
  it('counts every prompt token, cache reads and writes included', () => {
    expect(tokensIn(demo)).toBe(7774);
    expect(tokensText(demo)).toBe('7774 in / 290 out');
    expect(tokensDetail(demo)).toBe('7774 in (4608 cache read, 1536 cache write) / 290 out');
    expect(tokensDetail({ input: 10, output: 5, cacheRead: 0, cacheWrite: 0 })).toBe('10 in / 5 out');
  });

  it('says the same number in the progress lines, the end of a run, dex status and the Web UI', () => {
    const views = [
      progressLine(status),
      describeTaskEnd({ workflowId: 'task-math-fix-sum-1', end: { state: 'completed', result } }),
      renderTaskResult(result).join('\n'),
      renderRoadmapResult({ state: 'completed', runs: 1, tokens: demo, costUsd: 0.0099, tasks: [] }).join('\n'),
      runDetails(status, 'task-math-fix-sum-1'),
    ];
    for (const view of views) {
      expect(view).toContain('7774 in');
      expect(view).not.toMatch(/\b1630\b/);
      expect(view).not.toMatch(/\binput\b/);
    }
  });
});

describe('costs', () => {
  it('sum without float noise, so --json shows what a person would write', () => {
    expect(0.0033 + 0.0066).not.toBe(0.0099);
    expect(JSON.stringify({ costUsd: addUsd(0.0033, 0.0066) })).toBe('{"costUsd":0.0099}');
    expect(addUsd(...Array.from({ length: 1000 }, () => 0.0001))).toBe(0.1);
    expect(roundUsd(0.009899999999999999)).toBe(0.0099);
  });

  it('cost each call without float noise, losing no fraction of a token', () => {
    const call = (input: number) => costOf('claude-sonnet-4-6', { input, output: 0, cacheRead: 0, cacheWrite: 0 });
    expect(addUsd(call(1100), call(2200))).toBe(0.0099);
    // One token read from the cache of the cheapest model costs 8e-8 dollars: it is kept.
    expect(costOf('claude-3-5-haiku', { input: 0, output: 0, cacheRead: 1, cacheWrite: 0 })).toBe(0.00000008);
  });

  it('read as dollars and cents from a dollar up, to four places below', () => {
    expect(formatUsd(0.0099)).toBe('$0.0099');
    expect(formatUsd(0.5)).toBe('$0.5000');
    expect(formatUsd(1.234)).toBe('$1.23');
    expect(formatUsd(12.5)).toBe('$12.50');
    expect(formatUsd(0.99999)).toBe('$1.00');
    expect(formatUsd(0)).toBe('$0.00');
    expect(formatUsd(0.00001)).toBe('<$0.0001');
  });

  it('read alike in every view', () => {
    const row = { id: 'task-math-a-1', kind: 'task', state: 'completed', costUsd: 1.5, started: '2025-06-01T12:00:00Z' };
    expect(renderRunList([row])).toContain(' $1.50 ');
    expect(renderTaskResult({ ...result, costUsd: 1.5 })[0]).toContain('$1.50');
    expect(progressLine({ ...status, costUsd: 1.5 })).toMatch(/\$1\.50$/);
  });
});
