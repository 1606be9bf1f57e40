/**
 * The histories under test/histories/ (what test/workflows/replay.test.ts replays), loaded, and
 * RUNS: what each current one went through and which test records it, so a re-recording that
 * lost part of its run shows.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect } from 'vitest';

type Event = Record<string, any>;

/** One history file (`temporal workflow show -o json`) and whose run it is. */
export interface Recorded {
  /** Its path under test/histories/. */
  file: string;
  workflowType: string;
  workflowId: string;
  events: Event[];
}

const HISTORIES = join(__dirname, '..', '..', 'histories');

function load(file: string): Recorded {
  const { events } = JSON.parse(readFileSync(join(HISTORIES, file), 'utf8')) as { events: Event[] };
  const started = events[0]?.workflowExecutionStartedEventAttributes;
  if (!started) throw new Error(`test/histories/${file}: the first event is not WorkflowExecutionStarted`);
  return { file, workflowType: started.workflowType.name, workflowId: started.workflowId, events };
}

/** Every history file under test/histories/, by its path there. */
export const recorded = readdirSync(HISTORIES, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.json'))
  .map((f) => relative(HISTORIES, join(HISTORIES, f)))
  .sort()
  .map(load);
/** The ones today's tests record; released ones (in subfolders) are kept as they were. */
export const current = recorded.filter((h) => !h.file.includes('/'));
export const released = recorded.filter((h) => h.file.includes('/'));

const activities = (h: Recorded): string[] => h.events.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType.name ?? []);
const signals = (h: Recorded): string[] => h.events.flatMap((e) => e.workflowExecutionSignaledEventAttributes?.signalName ?? []);
const children = (h: Recorded): string[] => h.events.flatMap((e) => e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowType.name ?? []);

/** The payloads of the signals named `name` the run received, decoded. */
const signalInputs = (h: Recorded, name: string): Record<string, unknown>[] =>
  h.events.flatMap((e) => {
    const signal = e.workflowExecutionSignaledEventAttributes;
    return signal?.signalName === name ? [JSON.parse(Buffer.from(signal.input.payloads[0].data, 'base64').toString('utf8'))] : [];
  });
/** The run's input, decoded. */
const inputOf = (h: Recorded): Record<string, unknown> => JSON.parse(Buffer.from(h.events[0].workflowExecutionStartedEventAttributes.input.payloads[0].data, 'base64').toString('utf8'));
/** The patches (`patched(id)`) the run's history marks. */
const patches = (h: Recorded): string[] =>
  h.events.flatMap((e) => {
    const data = e.markerRecordedEventAttributes?.details?.['patch-data']?.payloads?.[0]?.data;
    return data ? [(JSON.parse(Buffer.from(data, 'base64').toString('utf8')) as { id: string }).id] : [];
  });

/** What each recorded run went through, and which test records it: a re-recording that lost it shows here. */
export const RUNS: Record<string, { recordedBy: string; covers: (h: Recorded) => void }> = {
  // Blocked, approved, fixed, committed.
  'task-workflow-approve.json': {
    recordedBy: 'test/integration/task/task-workflow.integration.test.ts',
    covers: (h) => {
      expect(activities(h)[0]).toBe('prepareWorktree');
      expect(signals(h)).toContain('approve');
      expect(activities(h)).toContain('commitCheckpoint');
    },
  },
  // The agent's fix broke the project's lint: verify failed on it alone, the base was asked once (lint passes there), the second fix passed (docs/real-repositories.md#checks-besides-tests).
  'task-workflow-checks.json': {
    recordedBy: 'test/integration/task/project-checks.integration.test.ts',
    covers: (h) => {
      expect(activities(h).filter((a) => a === 'verify')).toHaveLength(2);
      expect(activities(h).filter((a) => a === 'verifyBaseline')).toHaveLength(1);
      expect(activities(h)).toContain('setupWorktree');
      expect(activities(h)).toContain('commitCheckpoint');
    },
  },
  // Best of N: three attempts as child runs, the evidence chose C, a person chose B at the choose gate (docs/attempts.md).
  'task-workflow-attempts.json': {
    recordedBy: 'test/integration/attempts/best-of-attempts.integration.test.ts',
    covers: (h) => {
      expect(children(h)).toEqual(['taskWorkflow', 'taskWorkflow', 'taskWorkflow']);
      expect(activities(h)).toEqual([]);
      expect(h.events.some((e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === 'decide')).toBe(true);
    },
  },
  // A Claude Code session asked to write a protected path, waited at its gate, went on once approved (docs/claude-code.md).
  'task-workflow-claude-code.json': {
    recordedBy: 'test/integration/claude-code/claude-code.integration.test.ts',
    covers: (h) => {
      expect(activities(h).filter((a) => a === 'runClaudeSession')).toHaveLength(2);
      expect(signals(h)).toContain('approve');
      expect(activities(h)).toContain('commitCheckpoint');
    },
  },
  // A turn of reads ran them within its model call, which answered the next turn too; a turn of three tool calls ran them as one activity (docs/performance.md#tool-calls-of-one-turn).
  'task-workflow-turn-tools.json': {
    recordedBy: 'test/integration/task/turn-tools.integration.test.ts',
    covers: (h) => {
      expect(patches(h)).toEqual(expect.arrayContaining(['turn-tools-in-one-activity', 'reading-turns-in-one-call']));
      expect(activities(h).filter((a) => a === 'callModel')).toHaveLength(2);
      expect(activities(h).filter((a) => a === 'runTurnTools')).toHaveLength(1);
      expect(activities(h)).not.toContain('runTool');
      expect(activities(h)).toContain('commitCheckpoint');
    },
  },
  // Three reading turns and the fix in one model call, whose worker was SIGKILLed in the middle of it (docs/performance.md#reading-turns-in-one-call).
  'task-workflow-reading-turns.json': {
    recordedBy: 'test/integration/task/reading-turns.integration.test.ts',
    covers: (h) => {
      expect(patches(h)).toContain('reading-turns-in-one-call');
      expect(activities(h).filter((a) => a === 'callModel')).toHaveLength(2);
      expect(activities(h)).toContain('commitCheckpoint');
    },
  },
  // Waited in budget_exceeded, went on after approve raised the budget.
  'roadmap-workflow-budget.json': {
    recordedBy: 'test/integration/roadmap/roadmap.integration.test.ts',
    covers: (h) => {
      expect(children(h)).toEqual(['taskWorkflow']);
      expect(signals(h)).toContain('approve');
    },
  },
  // Two tasks on one file: the second branch was behind, its finalize run (a third child) merged and verified it, then it landed.
  'roadmap-workflow-finalize.json': {
    recordedBy: 'test/integration/roadmap/landing.integration.test.ts',
    covers: (h) => {
      expect(children(h)).toEqual(['taskWorkflow', 'taskWorkflow', 'taskWorkflow']);
      expect(activities(h).filter((a) => a === 'mergeTaskBranch')).toHaveLength(3);
    },
  },
  // Landing on a bare remote that another pusher moved: refused push, durable wait, fetch, finalize, push.
  'roadmap-workflow-remote.json': {
    recordedBy: 'test/integration/roadmap/landing.integration.test.ts',
    covers: (h) => {
      expect(activities(h).filter((a) => a === 'pushLanding')).toHaveLength(2);
      expect(h.events.some((e) => e.timerStartedEventAttributes)).toBe(true);
    },
  },
  // Proposed in branch mode: fetched a remote that was ahead, finalized onto it (a second child), pushed dex/B1, described it, ran the landCommand.
  'roadmap-workflow-proposal.json': {
    recordedBy: 'test/integration/roadmap/landing-branch.integration.test.ts',
    covers: (h) => {
      expect(children(h)).toEqual(['taskWorkflow', 'taskWorkflow']);
      expect(activities(h).filter((a) => ['pushProposal', 'describeProposal', 'runLandCommand'].includes(a))).toEqual(['pushProposal', 'describeProposal', 'runLandCommand']);
    },
  },
  // Three tasks landed through pull requests (docs/landing-through-prs.md): a merge refused as the base moved, a fix-ci run.
  'roadmap-workflow-pull-requests.json': {
    recordedBy: 'test/integration/roadmap/landing-pr.integration.test.ts',
    covers: (h) => {
      // Three tasks, then finalize runs (the 405 race, a base moved by the other landing) and a fix-ci run, on the tasks' ids.
      expect(children(h).length).toBeGreaterThanOrEqual(5);
      expect(activities(h).filter((a) => a === 'openPullRequest')).toHaveLength(3);
      expect(activities(h).filter((a) => a === 'mergePullRequest').length).toBeGreaterThanOrEqual(4);
      expect(activities(h)).toContain('rerunCheck');
      expect(activities(h)).toContain('readCheckLog');
      expect(signals(h)).toContain('ciChanged');
    },
  },
  // An issue's task landed through a pull request that was reviewed (docs/forge-triggers.md#reviews-answered-on-the-same-pr):
  // three revise runs (three comments; a question asked back; the answer), replies in threads, the dex status, an approving review.
  'roadmap-workflow-reviews.json': {
    recordedBy: 'test/integration/forge/review-revise.integration.test.ts',
    covers: (h) => {
      expect(children(h)).toEqual(['taskWorkflow', 'taskWorkflow', 'taskWorkflow', 'taskWorkflow']);
      expect(activities(h).filter((a) => a === 'readReview')).toHaveLength(3);
      expect(activities(h).filter((a) => a === 'replyInThread').length).toBeGreaterThanOrEqual(5);
      expect(activities(h)).toContain('setDexStatus');
      expect(signals(h).filter((s) => s === 'reviewSubmitted').length).toBeGreaterThanOrEqual(5);
      expect(patches(h)).toContain('dex-status-on-the-head');
    },
  },
  'roadmap-workflow-pr-conflict.json': {
    recordedBy: 'test/integration/roadmap/landing-pr-conflict.integration.test.ts',
    covers: (h) => {
      // One pull request; its first merge refused as a conflict, then a finalize run on the task's id, and the second merge.
      expect(children(h)).toHaveLength(2);
      expect(activities(h).filter((a) => a === 'openPullRequest')).toHaveLength(1);
      expect(activities(h).filter((a) => a === 'mergePullRequest')).toHaveLength(2);
      expect(signals(h)).toContain('ciChanged');
    },
  },
  // Three chained tasks with memory: each landing recorded the task's memory (docs/roadmaps.md#memory).
  'roadmap-workflow-memory.json': {
    recordedBy: 'test/integration/roadmap/memory.integration.test.ts',
    covers: (h) => {
      expect(children(h)).toEqual(['taskWorkflow', 'taskWorkflow', 'taskWorkflow']);
      expect(activities(h).filter((a) => a === 'recordTaskMemory')).toHaveLength(3);
    },
  },
  // Four tasks under a run budget: each grant request says what the task spent, the run waited at its budget gate, approve raised it.
  'roadmap-workflow-run-budget.json': {
    recordedBy: 'test/integration/task/budget-reservation.integration.test.ts',
    covers: (h) => {
      expect(children(h).length).toBeGreaterThanOrEqual(4);
      expect(signals(h)).toContain('approve');
      expect(signalInputs(h, 'budgetRequest').some((r) => (r.spent as { costUsd: number } | undefined)?.costUsd! > 0)).toBe(true);
    },
  },
  // T1's landing held at the merge gate while T2 and T10 finished; then T1, T2, T10 landed in natural id order.
  'roadmap-workflow-landing-order.json': {
    recordedBy: 'test/integration/roadmap/landing.integration.test.ts',
    covers: (h) => {
      expect(patches(h)).toContain('natural-id-order');
      expect(signals(h)).toContain('approve');
      expect(activities(h).filter((a) => a === 'mergeTaskBranch').length).toBeGreaterThanOrEqual(4);
    },
  },
  // --max-tasks 2 on three tasks: two started and landed, the third never started.
  'roadmap-workflow-max-tasks.json': {
    recordedBy: 'test/integration/cli/cli-run.integration.test.ts',
    covers: (h) => {
      expect(inputOf(h).maxTasks).toBe(2);
      const started = new Set(h.events.flatMap((e) => e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId ?? []));
      expect([...started].map((id) => id.split('-')[2]).sort()).toEqual(['M1', 'M2']);
    },
  },
  // The first run of a roadmap's chain under a history limit of 500 (docs/roadmaps.md#long-roadmaps): far from its
  // continueAsNewAfterTasks, it stopped starting tasks when its history would pass the limit, drained and continued as new.
  'roadmap-workflow-history-limit.json': {
    recordedBy: 'test/integration/roadmap/roadmap-continue-as-new.integration.test.ts',
    covers: (h) => {
      expect(inputOf(h)).toMatchObject({ historyLimit: 500, continueAsNewAfterTasks: 1000 });
      expect(patches(h)).toContain('roadmap-history-limit');
      expect(children(h).length).toBeGreaterThan(1);
      expect(h.events.length).toBeLessThanOrEqual(500);
      expect(h.events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();
    },
  },
  // A roadmap's task whose two calls ran 31 s apart: one report of its spending between the phase's start and its end.
  'task-workflow-spending.json': {
    recordedBy: 'test/integration/roadmap/roadmap.integration.test.ts',
    covers: (h) => {
      expect(patches(h)).toContain('spending-reports');
      expect(h.events.filter((e) => e.signalExternalWorkflowExecutionInitiatedEventAttributes?.signalName === 'taskUpdate')).toHaveLength(3);
    },
  },
  // Five topics under `repair`, the third answering prose first, each target one activity of the run (docs/layers.md#where-a-target-runs).
  'layer-workflow-repair.json': {
    recordedBy: 'test/integration/layer/layer-workflow.integration.test.ts',
    covers: (h) => {
      expect(patches(h)).toContain('layer-target-activity');
      expect(activities(h)[0]).toBe('resolveLayerTargets');
      expect(activities(h).filter((a) => a === 'runLayerTargets')).toHaveLength(5);
      expect(children(h)).toEqual([]);
    },
  },
  // A target of a layer with `target_workflows: true`, in its own child: fetch, render, reserve, call, settle, store.
  'layer-target-workflow-child.json': {
    recordedBy: 'test/integration/layer/layer-concurrency.integration.test.ts',
    covers: (h) => expect(activities(h).filter((a) => a === 'callLayerModel')).toHaveLength(1),
  },
  // The last run of a layer's chain (docs/layers.md#continue-as-new): the targets left from the store, the
  // global part reduced over every run's results, the record built from them.
  'layer-workflow-continue-as-new.json': {
    recordedBy: 'test/integration/layer/layer-continue-as-new.integration.test.ts',
    covers: (h) => {
      expect(patches(h)).toEqual(expect.arrayContaining(['layer-continue-as-new', 'visible-upserts', 'layer-target-activity']));
      expect(activities(h)).toEqual(['layerTargetsLeft', 'runLayerTargets', 'reduceLayerChain', 'runLayerTargets', 'recordLayerChain']);
      expect(children(h)).toEqual([]);
    },
  },
  // The last run of a transaction's chain (docs/sheets.md#continue-as-new): what the earlier six runs
  // did (three statements, a failure, two undos) read from the store, then the first statement's undo.
  'sheet-workflow-continue-as-new.json': {
    recordedBy: 'test/integration/sheet/sheet-continue-as-new.integration.test.ts',
    covers: (h) => {
      expect(patches(h)).toEqual(expect.arrayContaining(['sheet-continue-as-new', 'visible-upserts']));
      expect(activities(h)).toEqual(['sheetChainState', 'runSheetCommand']);
      expect(h.events[0].workflowExecutionStartedEventAttributes.continuedExecutionRunId).toBeTruthy();
    },
  },
  // A transaction whose depth-1 statement fails: three statements ran, and their three undos.
  'sheet-workflow-transaction.json': {
    recordedBy: 'test/integration/sheet/sheet-workflow.integration.test.ts',
    covers: (h) => expect(activities(h)).toEqual(Array(7).fill('runSheetCommand')),
  },
};
