/**
 * `dex/testing` (docs/testing-your-flows.md#in-your-own-test-runner): run a task, a roadmap, a
 * layer or a sheet of your own on the time-skipping test server, the model answering from a
 * cassette, and write `expect(...)` on how it ended and what it asked the model. Works in any runner (vitest, mocha,
 * jest): it starts nothing until `startDexTest()` and holds nothing after `stop()`.
 */
import { resolve } from 'node:path';
import type { TopicMessage } from '../../core/layer/layer-context';
import type { LayerRunRecord } from '../../core/layer/layer-types';
import { layerWorkflowIdPrefix, numberedWorkflowId, sheetWorkflowIdPrefix, taskWorkflowIdPrefix } from '../../core/run/ids';
import { InvalidInput } from '../../core/run/invalid-input';
import type { RunStatus } from '../../core/run/run-types';
import type { SheetResult } from '../../core/sheet/sheet-types';
import type { TaskResult } from '../../core/task/task-types';
import { PLAN_KINDS } from '../plan-kinds';
import { buildLayerInput } from '../requests/layer-request';
import { parsePeopleScript, readPeopleScript, type ScriptedAnswer } from '../requests/people-script';
import type { LayerOutcome, SheetOutcome } from '../requests/recorded-plans';
import { outcomeOf, type RunOutcome } from '../requests/replay-test-record';
import { buildRoadmapInput } from '../requests/roadmap-request';
import { buildSheetInput, planSheetFile } from '../requests/sheet-file';
import { buildTaskInput } from '../requests/task-request';
import { parseTopicMessages, readTopicMessages } from '../requests/topic-messages-file';
import { readSettings } from '../settings';
import { runLayerOnHost, runSheetOnHost } from './plan-runs';
import { timeSkippingSettings } from './replay-recording';
import { runScripted, type PlanStart, type ScriptedRun } from './scripted-run';
import { startTimeSkippingHost } from './time-skipping-host';

/** One person's answer, written as in a people script: `{ reject: 'after-verify:test', reason: '…', retry: true }`, `{ raiseBudgetUsd: 2 }`. */
export interface PersonAnswer {
  approve?: string;
  reject?: string;
  /** Leave this gate alone: its deadline's default acts. */
  wait?: string;
  /** At the `budget` gate (`budget_exceeded`): the new budget in USD, as `dex approve --budget-usd N`. */
  raiseBudgetUsd?: number;
  /** Whose gate this is: a roadmap's task, or a sheet's task statement (its id; `<id>-undo` for its undo's task). @default any */
  task?: string;
  note?: string;
  reason?: string;
  retry?: boolean;
  by?: string;
}

/** Who answers which gate: a people script's `people` list, or the path of a people script. @default nobody: deadlines decide */
export type People = PersonAnswer[] | string;

/** What every run takes. */
export interface RunOptions {
  /** The cassette (`--llm replay:FILE`) the model answers from. @default the one given to startDexTest */
  cassette?: string;
  people?: People;
  /** Run the agent's commands without bubblewrap (a machine without it). @default false */
  unsafeNoSandbox?: boolean;
}

/** What every outcome tells besides how the run ended. */
export interface RunFacts {
  workflowId: string;
  costUsd: number;
  /** The server's time the run took (deadlines and timers included) and the wall time. */
  simulatedMs: number;
  wallMs: number;
  /** Why the run was stopped (a gate nobody answers that has no deadline), or how it failed. */
  error?: string;
}

/** How a task or roadmap run ended, what it cost, what it asked the model, and how long it took. */
export interface PlanOutcome extends RunOutcome, RunFacts {
  /** Every prompt's text (the user messages sent to the model), in order per transcript. */
  prompts: string[];
  /** What the people answered, one line each. */
  answered: string[];
  /** The run's last `status` (docs/interfaces.md#people-in-the-loop). */
  status?: RunStatus;
}

/** How a layer run ended: `state`, `status`, each target's status, the insights it stored and the prompt of each model call, by `<target>/<node>`. */
export interface LayerRunOutcome extends LayerOutcome, RunFacts {
  /** The run's record: targets processed, failed and skipped, insights created, tokens, cost; absent when the run failed before it. */
  record?: LayerRunRecord;
  /** How many runs the layer's chain took: one more than the times it continued as new (docs/layers.md#continue-as-new). */
  chainRuns: number;
}

/** How a sheet run ended: `state` and each statement's status, value and error code. */
export interface SheetRunOutcome extends SheetOutcome, RunFacts {
  /** The sheet's result: each statement's error message and undo too, tokens, cost. */
  result?: SheetResult;
  /** Every prompt's text: its llm statements' and its task statements' (the user messages sent to the model). */
  prompts: string[];
  /** What the people answered, one line each. */
  answered: string[];
}

/** A topic message to import, as a line of a `dex messages import` file: without `id`, one is made from its content. */
export type NewTopicMessage = Omit<TopicMessage, 'id'> & { id?: string };

/** A time-skipping server with a dex worker, for one test file. */
export interface DexTest {
  /** Runs `title` on `repo` as `dex task` would (its dex.config.yaml included). */
  runTask(req: { repo: string; title: string; description?: string; weight?: string } & RunOptions): Promise<PlanOutcome>;
  /** Runs the roadmap file `roadmap` as `dex run` would; it lands on the checked-out branch of `repo` (default: the roadmap's folder). */
  runRoadmap(req: { roadmap: string; repo?: string } & RunOptions): Promise<PlanOutcome>;
  /**
   * Runs the layer file `file` as `dex layer` would, on this test's store (kept until `stop()`):
   * `messages` (a list, or a JSON Lines file as `dex messages import` reads) are imported first,
   * and its lookbacks count back from `clock` (@default the server's clock).
   */
  runLayer(req: {
    file: string;
    messages?: NewTopicMessage[] | string;
    clock?: string | number | Date;
    cassette?: string;
    /** Events a run of the layer's chain may reach before it continues as new (default 8,000): a small one tests a big night's hand-overs with a few topics. */
    historyLimit?: number;
  }): Promise<LayerRunOutcome>;
  /** Runs the sheet file `file` as `dex sheet` would; `people` answer its `plan` gate (with `confirm`) and its task statements' gates. */
  runSheet(req: { file: string; confirm?: boolean; cassette?: string; people?: People }): Promise<SheetRunOutcome>;
  /** Stops the worker and the server. */
  stop(): Promise<void>;
}

/** Starts the time-skipping server and a worker (a few seconds); call `stop()` when the file's tests are done. */
export async function startDexTest(opts: { cassette?: string } = {}): Promise<DexTest> {
  const host = await startTimeSkippingHost();
  const settings = timeSkippingSettings(readSettings(), host.dexHome);
  const runs = new Map<string, number>();
  const nextId = (prefix: string) => {
    const n = (runs.get(prefix) ?? 0) + 1;
    runs.set(prefix, n);
    return numberedWorkflowId(prefix, n);
  };
  const llmOf = (cassette: string | undefined) => {
    const file = cassette ?? opts.cassette;
    if (!file) throw new Error('dex/testing: name a cassette, in startDexTest({ cassette }) or in the run');
    return `replay:${resolve(file)}`;
  };
  const plan = async (start: PlanStart, repo: string, kind: 'task' | 'roadmap', people: People | undefined): Promise<PlanOutcome> => {
    const run = await runScripted(host, start, answersOf(people));
    const branch = kind === 'task' ? (run.end.result as TaskResult | undefined)?.branch ?? 'HEAD' : 'HEAD';
    const { prompts, answered, status } = run;
    return { ...outcomeOf(kind, repo, branch, run.end), ...factsOf(run, status?.costUsd), prompts, answered, status };
  };
  return {
    runTask: async (req) => {
      const { input, repoName } = buildTaskInput({ ...req, llm: llmOf(req.cassette) }, settings);
      const workflowId = nextId(taskWorkflowIdPrefix(repoName, input.taskId));
      return plan({ workflowType: PLAN_KINDS.task.workflowType, workflowId, args: [input] }, input.repoPath, 'task', req.people);
    },
    runRoadmap: async (req) => {
      const checked = buildRoadmapInput({ roadmap: resolve(req.roadmap), repo: req.repo, llm: llmOf(req.cassette), unsafeNoSandbox: req.unsafeNoSandbox }, settings);
      const start = { workflowType: PLAN_KINDS.roadmap.workflowType, workflowId: checked.workflowId, args: [checked.input] };
      return plan(start, checked.input.repoPath, 'roadmap', req.people);
    },
    runLayer: async (req) => {
      if (req.historyLimit !== undefined && !(Number.isInteger(req.historyLimit) && req.historyLimit > 0)) throw new InvalidInput(`historyLimit ${req.historyLimit} is not a whole number of events above 0`);
      const checked = buildLayerInput(req.file, { llm: llmOf(req.cassette) }, settings);
      const layer = { ...checked, ...(req.clock === undefined ? {} : { clock: clockOf(req.clock) }), ...(req.historyLimit === undefined ? {} : { historyLimit: req.historyLimit }) };
      if (req.messages !== undefined) await host.deps.store.layers.importMessages(topicMessages(req.messages));
      const { run, outcome } = await runLayerOnHost(host, nextId(layerWorkflowIdPrefix(layer.layer.name)), layer);
      const record = run.end.result as LayerRunRecord | undefined;
      const chainRuns = (run.status?.earlier?.runs ?? 0) + 1;
      return { ...outcome, ...factsOf(run, record?.costUsd ?? run.status?.costUsd), chainRuns, ...(record ? { record } : {}) };
    },
    runSheet: async (req) => {
      const sheet = planSheetFile(req.file);
      const input = buildSheetInput(req.file, sheet, { confirm: req.confirm, llm: llmOf(req.cassette) }, settings);
      const { run, outcome } = await runSheetOnHost(host, nextId(sheetWorkflowIdPrefix(sheet.name)), input, answersOf(req.people));
      const result = run.end.result as SheetResult | undefined;
      const { prompts, answered } = run;
      return { ...outcome, ...factsOf(run, result?.costUsd ?? run.status?.costUsd), prompts, answered, ...(result ? { result } : {}) };
    },
    stop: () => host.stop(),
  };
}

function answersOf(people: People | undefined): ScriptedAnswer[] {
  if (people === undefined) return [];
  if (typeof people === 'string') return readPeopleScript(people).answers;
  // Checked as a script's `people` would be, so a typo fails here and not as a run that waits.
  return parsePeopleScript(JSON.stringify({ people }), 'people').answers;
}

/** The messages to import, checked as the lines of a `dex messages import` file are (a list's ids made the same way). */
function topicMessages(messages: NewTopicMessage[] | string): TopicMessage[] {
  if (typeof messages === 'string') return readTopicMessages(messages);
  return parseTopicMessages(messages.map((m) => JSON.stringify(m)).join('\n'), 'messages');
}

/** A layer's clock in ms: an ISO 8601 date and time, ms since the epoch, or a Date. */
function clockOf(clock: string | number | Date): number {
  const ms = clock instanceof Date ? clock.getTime() : typeof clock === 'number' ? clock : Date.parse(clock);
  if (Number.isNaN(ms)) throw new InvalidInput(`clock: ${String(clock)} is not a date and time (use ISO 8601, e.g. 2025-01-31T18:00:00Z)`);
  return ms;
}

/** What every outcome tells besides how the run ended, from the scripted run. */
function factsOf(run: ScriptedRun, costUsd: number | undefined): RunFacts {
  const { workflowId, simulatedMs, wallMs } = run;
  return { workflowId, costUsd: costUsd ?? 0, simulatedMs, wallMs, ...(run.end.error || run.stuck ? { error: run.stuck ?? run.end.error } : {}) };
}
