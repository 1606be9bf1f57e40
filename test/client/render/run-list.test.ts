import type { WorkflowExecutionInfo } from '@temporalio/client';
import { TypedSearchAttributes, type SearchAttributePair } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { renderRoadmapResult } from '../../../client/render/render-roadmap';
import { renderTaskResult } from '../../../client/render/render-task';
import { describeTaskEnd } from '../../../client/render/task-end';
import { describeDrivenRun, endLine } from '../../../client/render/render-run-end';
import { layerAbout, roadmapAbout, RUN_DETAILS, sheetAbout, startMarks, taskAbout } from '../../../client/run/run-about';
import { listQuery, renderRunList, runRow } from '../../../client/render/run-list';
import { waitingListLink, webUiDetailsLink, webUiLink } from '../../../client/web-ui-links';
import type { LayerInput } from '../../../core/layer/layer-types';
import type { RoadmapInput, RoadmapResult } from '../../../core/roadmap/roadmap-types';
import { DEX_COST_USD, DEX_KIND, DEX_PHASE, DEX_REPO, DEX_STATE, DEX_WAITING_FOR } from '../../../core/run/search-attributes';
import type { SheetInput } from '../../../core/sheet/sheet-types';
import type { TaskResult } from '../../../core/task/task-types';
import { taskInput } from '../../support/env/dev-server-env';

/** What `client.workflow.list()` yields for one run. */
function info(over: { id: string; type?: string; status?: string; attrs?: SearchAttributePair[]; memo?: Record<string, unknown> }): WorkflowExecutionInfo {
  return {
    workflowId: over.id,
    type: over.type ?? 'taskWorkflow',
    status: { name: over.status ?? 'RUNNING' },
    startTime: new Date('2025-06-01T12:03:00Z'),
    closeTime: over.status && over.status !== 'RUNNING' ? new Date('2025-06-01T12:09:00Z') : undefined,
    memo: over.memo,
    typedSearchAttributes: new TypedSearchAttributes(over.attrs ?? []),
  } as unknown as WorkflowExecutionInfo;
}

describe('dex list: the visibility query', () => {
  it('asks for dex runs only, and turns the filters into search attributes', () => {
    expect(listQuery({})).toBe('WorkflowType IN ("taskWorkflow", "roadmapWorkflow", "layerWorkflow", "sheetWorkflow")');
    expect(listQuery({ state: 'waiting', kind: 'roadmap', repo: 'math' })).toBe('WorkflowType = "roadmapWorkflow" AND DexState = "waiting" AND ExecutionStatus = "Running" AND DexRepo = "math"');
    expect(listQuery({ repo: '/home/ana/src/math/' })).toContain('DexRepo = "math"');
    // DexRepo holds the folder name made safe (core/run/ids.ts repoNameOf), so the filter makes it safe too.
    expect(listQuery({ repo: '/home/ana/src/my app' })).toContain('DexRepo = "my-app"');
  });

  it('refuses a state, kind or repository it cannot ask for (exit 2)', () => {
    expect(() => listQuery({ state: 'sleeping' })).toThrow(/unknown --state "sleeping": use running, waiting/);
    expect(() => listQuery({ kind: 'job' })).toThrow(/unknown --kind "job": use task, roadmap, layer, sheet/);
    expect(() => listQuery({ repo: 'a" OR "1' })).toThrow(/not a repository's name/);
  });
});

describe("dex list: a run's row", () => {
  it("reads dex's state, kind, gate, cost and phase from the search attributes and the title from the memo", () => {
    const row = runRow(
      info({
        id: 'task-math-fix-sum-1',
        attrs: [
          { key: DEX_KIND, value: 'task' },
          { key: DEX_STATE, value: 'waiting' },
          { key: DEX_REPO, value: 'math' },
          { key: DEX_PHASE, value: 'implement' },
          { key: DEX_WAITING_FOR, value: 'blocked' },
          { key: DEX_COST_USD, value: 0.0123 },
        ],
        memo: { title: 'Fix sum', repo: 'math' },
      }),
    );
    expect(row).toEqual({
      id: 'task-math-fix-sum-1',
      kind: 'task',
      state: 'waiting',
      title: 'Fix sum',
      repo: 'math',
      phase: 'implement',
      waitingFor: 'blocked',
      costUsd: 0.0123,
      started: '2025-06-01T12:03:00.000Z',
      closed: undefined,
      answer: 'dex approve task-math-fix-sum-1  (or: dex reject task-math-fix-sum-1 --reason TEXT)',
    });
  });

  it("falls back to Temporal's status and the workflow type for a run without dex's attributes", () => {
    expect(runRow(info({ id: 'roadmap-math-1', type: 'roadmapWorkflow', status: 'COMPLETED' }))).toMatchObject({ kind: 'roadmap', state: 'completed' });
  });

  it('trusts Temporal over a live DexState once the run was ended from outside', () => {
    const row = runRow(info({ id: 't', status: 'TERMINATED', attrs: [{ key: DEX_STATE, value: 'waiting' }, { key: DEX_WAITING_FOR, value: 'blocked' }] }));
    expect(row).toMatchObject({ state: 'terminated', waitingFor: undefined, answer: undefined });
  });

  it('answers a run over budget with a new budget, and one at the choose gate with an attempt', () => {
    expect(runRow(info({ id: 't', attrs: [{ key: DEX_STATE, value: 'budget_exceeded' }] })).answer).toBe('dex approve t --budget-usd N');
    // A best-of-N task waiting at its choose gate is answered with an attempt too (docs/attempts.md#the-choose-gate).
    expect(runRow(info({ id: 'c', attrs: [{ key: DEX_STATE, value: 'waiting' }, { key: DEX_WAITING_FOR, value: 'choose' }] })).answer).toBe('dex approve c  (or: dex choose c ATTEMPT)');
  });
});

describe('dex list: the text', () => {
  it('puts the runs waiting for you first, each with its answer, then every run a line', () => {
    const rows = [
      runRow(info({ id: 'task-math-b-1', attrs: [{ key: DEX_STATE, value: 'running' }, { key: DEX_PHASE, value: 'test' }], memo: { title: 'B', repo: 'math' } })),
      runRow(info({ id: 'task-math-a-1', attrs: [{ key: DEX_STATE, value: 'waiting' }, { key: DEX_WAITING_FOR, value: 'before:implement' }, { key: DEX_COST_USD, value: 0.5 }], memo: { title: 'A' } })),
    ];
    expect(renderRunList(rows).split('\n')).toEqual([
      'waiting for you:',
      '  task-math-a-1 at gate before:implement: dex approve task-math-a-1  (or: dex reject task-math-a-1 --reason TEXT)',
      '',
      '2025-06-01 12:03  running  task           task-math-b-1  B · on math · in test',
      '2025-06-01 12:03  waiting  task  $0.5000  task-math-a-1  A · at gate before:implement',
    ]);
    expect(renderRunList([])).toBe('no runs');
  });

  it("links the Web UI's list of waiting runs and each waiting run's page, when dex knows where the UI is", () => {
    const waiting = runRow(info({ id: 'task-math-a-1', attrs: [{ key: DEX_STATE, value: 'waiting' }, { key: DEX_WAITING_FOR, value: 'blocked' }] }));
    const settings = { namespace: 'default', taskQueue: 'dex', hostQueue: 'dex@h', dexHome: '/h', store: { kind: 'sqlite' as const, path: '/h/dex.db' } };
    const list = waitingListLink(settings, {})!;
    expect(new URL(list).searchParams.get('query')).toBe('DexState="waiting" AND ExecutionStatus="Running"');
    const page = webUiDetailsLink(settings, waiting.id, 'run-1', {})!;
    expect(renderRunList([{ ...waiting, webUi: page }], list).split('\n').slice(0, 3)).toEqual([
      `waiting for you (in the Web UI: ${list}):`,
      '  task-math-a-1 at gate blocked: dex approve task-math-a-1  (or: dex reject task-math-a-1 --reason TEXT)',
      '    http://127.0.0.1:8233/namespaces/default/workflows/task-math-a-1/run-1/metadata',
    ]);
    expect(webUiLink(settings, 'a b', {})).toBe('http://127.0.0.1:8233/namespaces/default/workflows/a%20b');
    // On a server the user names, dex knows the UI only from TEMPORAL_UI_URL.
    expect(waitingListLink({ ...settings, address: 'temporal.example:7233' }, {})).toBeUndefined();
  });
});

describe('what a run is, from its start', () => {
  it('gives each kind a summary in words and a memo with its title and repository', () => {
    const task = taskInput('fix-sum', '/src/math', 'q@h', { title: 'Fix sum', phases: ['implement', 'test'] });
    expect(taskAbout(task)).toEqual({ title: 'Fix sum', repo: 'math', summary: 'Task "Fix sum" on math (implement, test)' });
    const roadmap = { repoPath: '/src/math', roadmapFile: 'ROADMAP.md', baseBranch: 'main' } as RoadmapInput;
    expect(roadmapAbout(roadmap, [{ done: false }, { done: true }, { done: false }]).summary).toBe('Roadmap ROADMAP.md on math: 3 tasks (1 done already), landing on main');
    const layer = { layer: { name: 'nightly', targets: { keys: ['ops', 'dev'] } } } as LayerInput;
    expect(layerAbout(layer)).toEqual({ title: 'nightly', summary: 'Layer nightly over 2 targets' });
    const sheet = { name: 'release', statements: [{}, {}, {}], phases: [[0], [1, 2]], transaction: true } as unknown as SheetInput;
    expect(sheetAbout(sheet).summary).toBe('Sheet release: 3 statements in 2 phases, as a transaction');
  });

  it('keeps sandbox: off in the memo of an unconfined run and says so in its summary', () => {
    const about = { title: 'Fix sum', repo: 'math', summary: 'Task "Fix sum" on math (implement)' };
    expect(startMarks(about)).toEqual({ memo: { title: 'Fix sum', repo: 'math' }, staticSummary: about.summary, staticDetails: RUN_DETAILS });
    const marks = startMarks(about, true);
    expect(marks.memo).toEqual({ title: 'Fix sum', repo: 'math', sandbox: 'off' });
    expect(marks.staticSummary).toMatch(/^Task "Fix sum" on math \(implement\) — UNSANDBOXED/);
  });
});

describe('why a run failed', () => {
  const failed: TaskResult = {
    taskId: 'fix-sum',
    state: 'failed',
    branch: 'dex/task-math-fix-sum-1',
    turns: 2,
    tokens: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0 },
    costUsd: 0.001,
    verifyPassed: false,
    error: 'phase implement used all 2 turns without a verified completion',
    verifyTail: 'not ok 1 - sum adds two numbers\n  expected: 5\n  actual: 6\n',
    worktreePath: '/home/ana/.dex/worktrees/task-math-fix-sum-1',
    baseSha: 'abc',
  };

  it("shows a failed task's verify tail and kept worktree in dex status", () => {
    expect(renderTaskResult(failed)).toEqual([
      'tokens: 10 in / 5 out · $0.0010 · 2 model turns',
      'verify failed: not ok 1 - sum adds two numbers',
      '  expected: 5',
      'verify output (tail):',
      '  not ok 1 - sum adds two numbers',
      '    expected: 5',
      '    actual: 6',
      'worktree kept at /home/ana/.dex/worktrees/task-math-fix-sum-1',
    ]);
    expect(renderTaskResult({ ...failed, state: 'completed' })).toHaveLength(1);
  });

  it('says how a run ended once: no error that only repeats its state', () => {
    expect(endLine('t-1', { state: 'cancelled' })).toBe('t-1: cancelled');
    expect(endLine('t-1', { state: 'cancelled', error: 'cancelled' })).toBe('t-1: cancelled');
    expect(endLine('t-1', { state: 'failed', error: 'verify failed' })).toBe('t-1: failed — verify failed');
  });

  it('says a detached run of any kind started the same way: `ID started` and its Web UI page', () => {
    const webUi = 'http://127.0.0.1:8233/namespaces/default/workflows/x';
    for (const type of ['roadmapWorkflow', 'layerWorkflow', 'sheetWorkflow']) {
      expect(describeDrivenRun(type, { workflowId: 'x', webUi })).toBe(`x started\nWeb UI: ${webUi}`);
    }
    expect(describeTaskEnd({ workflowId: 'x', webUi })).toBe(`x started\nWeb UI: ${webUi}`);
  });

  it('puts the cause verify found in the whole output before the tail', () => {
    const lines = renderTaskResult({ ...failed, verifyTail: '    at x (t.js:1:1)\n# duration_ms 3', verifyCause: 'not ok 1 - sum adds\n-1 !== 3' });
    expect(lines.slice(1, 4)).toEqual(['verify failed: not ok 1 - sum adds', '  -1 !== 3', 'verify output (tail):']);
  });

  it("keeps an ended task's type, steps and verify failures told apart, as its status showed them", () => {
    const ended: TaskResult = {
      ...failed,
      type: 'code_modify',
      steps: { completed: ['read'], pending: ['edit', 'test'] },
      verify: { preExisting: ['npm test: old flake'], newFailures: ['npm test: sum adds'] },
    };
    expect(renderTaskResult(ended).slice(1, 6)).toEqual([
      'type: code_modify · read completed · edit, test not reached',
      '1 verify failure the base commit already had (not blocking):',
      '  npm test: old flake',
      '1 new verify failure:',
      '  npm test: sum adds',
    ]);
  });

  it('ends dex task with them too, and the commands that show more', () => {
    const text = describeTaskEnd({ workflowId: 'task-math-fix-sum-1', end: { state: 'failed', error: failed.error, result: failed } });
    expect(text).toContain('task-math-fix-sum-1: failed — phase implement used all 2 turns');
    expect(text).toContain('  not ok 1 - sum adds two numbers');
    expect(text).toContain('worktree kept at /home/ana/.dex/worktrees/task-math-fix-sum-1');
    expect(text).toContain('dex log task-math-fix-sum-1 · what it changed: dex diff task-math-fix-sum-1');
  });

  it("gives each failed task of a roadmap its error and the run that holds the rest", () => {
    const zero = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
    const result: RoadmapResult = {
      state: 'failed',
      runs: 1,
      tokens: zero,
      costUsd: 0,
      tasks: [
        { id: 'A1', state: 'failed', error: 'verify failed: npm test', workflowId: 'task-math-A1-1234abcd', tokens: zero, costUsd: 0 },
        { id: 'A2', state: 'skipped', blockedBy: 'A1', error: 'A1 failed', tokens: zero, costUsd: 0 },
      ],
    };
    const lines = renderRoadmapResult(result);
    expect(lines).toContain('A1 failed: verify failed: npm test');
    expect(lines).toContain('  its verify output and worktree: dex status task-math-A1-1234abcd · dex log task-math-A1-1234abcd · dex diff task-math-A1-1234abcd');
    expect(lines.filter((l) => l.startsWith('A2'))).toEqual([]);
  });
});
