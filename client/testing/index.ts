/**
 * `dex/testing` (docs/testing-your-flows.md#in-your-own-test-runner): run a task or a roadmap of
 * your own on the time-skipping test server, the model answering from a cassette, and write
 * `expect(...)` on how it ended and what it asked the model. Works in any runner (vitest, mocha,
 * jest): it starts nothing until `startDexTest()` and holds nothing after `stop()`.
 */
import { resolve } from 'node:path';
import { numberedWorkflowId, taskWorkflowIdPrefix } from '../../core/run/ids';
import type { RunStatus } from '../../core/run/run-types';
import type { TaskResult } from '../../core/task/task-types';
import { PLAN_KINDS } from '../plan-kinds';
import { parsePeopleScript, readPeopleScript, type ScriptedAnswer } from '../requests/people-script';
import { outcomeOf, type RunOutcome } from '../requests/replay-test-record';
import { buildRoadmapInput } from '../requests/roadmap-request';
import { buildTaskInput } from '../requests/task-request';
import { readSettings } from '../settings';
import { timeSkippingSettings } from './replay-recording';
import { runScripted, type PlanStart } from './scripted-run';
import { startTimeSkippingHost, type TimeSkippingHost } from './time-skipping-host';

/** One person's answer, written as in a people script: `{ reject: 'after-verify:test', reason: '…', retry: true }`, `{ raiseBudgetUsd: 2 }`. */
export interface PersonAnswer {
  approve?: string;
  reject?: string;
  /** Leave this gate alone: its deadline's default acts. */
  wait?: string;
  /** At the `budget` gate (`budget_exceeded`): the new budget in USD, as `dex approve --budget-usd N`. */
  raiseBudgetUsd?: number;
  /** A roadmap's task whose gate this is. @default any task */
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

/** How a run ended, what it cost, what it asked the model, and how long it took. */
export interface PlanOutcome extends RunOutcome {
  workflowId: string;
  costUsd: number;
  /** Every prompt's text (the user messages sent to the model), in order per transcript. */
  prompts: string[];
  /** The server's time the run took (deadlines and timers included) and the wall time. */
  simulatedMs: number;
  wallMs: number;
  /** What the people answered, one line each. */
  answered: string[];
  /** The run's last `status` (docs/interfaces.md#people-in-the-loop). */
  status?: RunStatus;
  error?: string;
}

/** A time-skipping server with a dex worker, for one test file. */
export interface DexTest {
  /** Runs `title` on `repo` as `dex task` would (its dex.config.yaml included). */
  runTask(req: { repo: string; title: string; description?: string; weight?: string } & RunOptions): Promise<PlanOutcome>;
  /** Runs the roadmap file `roadmap` as `dex run` would; it lands on the checked-out branch of `repo` (default: the roadmap's folder). */
  runRoadmap(req: { roadmap: string; repo?: string } & RunOptions): Promise<PlanOutcome>;
  /** Stops the worker and the server. */
  stop(): Promise<void>;
}

/** Starts the time-skipping server and a worker (a few seconds); call `stop()` when the file's tests are done. */
export async function startDexTest(opts: { cassette?: string } = {}): Promise<DexTest> {
  const host = await startTimeSkippingHost();
  const settings = timeSkippingSettings(readSettings(), host.dexHome);
  const runs = new Map<string, number>();
  const llmOf = (cassette: string | undefined) => {
    const file = cassette ?? opts.cassette;
    if (!file) throw new Error('dex/testing: name a cassette, in startDexTest({ cassette }) or in the run');
    return `replay:${resolve(file)}`;
  };
  const run = (start: PlanStart, repo: string, kind: 'task' | 'roadmap', people: People | undefined) =>
    outcome(host, start, repo, kind, answersOf(people));
  return {
    runTask: async (req) => {
      const { input, repoName } = buildTaskInput({ ...req, llm: llmOf(req.cassette) }, settings);
      const prefix = taskWorkflowIdPrefix(repoName, input.taskId);
      const n = (runs.get(prefix) ?? 0) + 1;
      runs.set(prefix, n);
      const start = { workflowType: PLAN_KINDS.task.workflowType, workflowId: numberedWorkflowId(prefix, n), args: [input] };
      return run(start, input.repoPath, 'task', req.people);
    },
    runRoadmap: async (req) => {
      const checked = buildRoadmapInput({ roadmap: resolve(req.roadmap), repo: req.repo, llm: llmOf(req.cassette), unsafeNoSandbox: req.unsafeNoSandbox }, settings);
      const start = { workflowType: PLAN_KINDS.roadmap.workflowType, workflowId: checked.workflowId, args: [checked.input] };
      return run(start, checked.input.repoPath, 'roadmap', req.people);
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

async function outcome(host: TimeSkippingHost, start: PlanStart, repo: string, kind: 'task' | 'roadmap', answers: ScriptedAnswer[]): Promise<PlanOutcome> {
  const run = await runScripted(host, start, answers);
  const branch = kind === 'task' ? (run.end.result as TaskResult | undefined)?.branch ?? 'HEAD' : 'HEAD';
  return {
    ...outcomeOf(kind, repo, branch, run.end),
    workflowId: run.workflowId,
    costUsd: run.status?.costUsd ?? 0,
    prompts: run.prompts,
    simulatedMs: run.simulatedMs,
    wallMs: run.wallMs,
    answered: run.answered,
    status: run.status,
    ...(run.end.error || run.stuck ? { error: run.stuck ?? run.end.error } : {}),
  };
}
