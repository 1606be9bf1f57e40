import { getExternalWorkflowHandle, ParentClosePolicy, setHandler, startChild, workflowInfo } from '@temporalio/workflow';
import { attemptName, attemptWorkflowId, describeVariant, variantOf, type AttemptRow } from '../../../core/task/attempts';
import type { TaskInput, TaskResult } from '../../../core/task/task-types';
import { SHORT_WORKFLOW_TASK_TIMEOUT, taskUpdateSignal, type TaskSpending } from '../../../core/run/definitions';
import { addUsage, addUsd, ZERO_USAGE } from '../../../core/run/usage';
import { SUMMARY_BYTES, clipText } from '../../../core/limits/server-limits';
import { classifyChildFailure } from '../../run/child-end';

/** taskWorkflow's signature, named without importing it (it imports this file). */
type TaskWorkflow = (input: TaskInput) => Promise<TaskResult>;

const ENDED: AttemptRow['state'][] = ['completed', 'failed', 'rejected', 'cancelled'];

/**
 * The attempts of a best-of-N task (docs/attempts.md): each a child `taskWorkflow` under its own
 * id and branch (`<id>-A`, `dex/<id>-A`), on whichever worker its placement picks. Keeps each
 * one's row as it goes (state and spending from its updates, evidence from its result) and
 * cancels those still running when the choice no longer needs them.
 */
export class AttemptRuns {
  readonly rows: AttemptRow[];
  /** Each ended attempt's result (a failed one's, when its failure carried it). */
  readonly results = new Map<string, TaskResult>();
  private readonly spending = new Map<string, TaskSpending & { turns: number }>();
  /** Where each attempt was last heard to be (its phase, or the gate it waits at). */
  private readonly where = new Map<string, string>();

  constructor(
    private readonly input: TaskInput,
    /** Publishes the change; with `step`, as a step of the run (an attempt's phase, its end). */
    private readonly changed: (step?: string) => void,
    private readonly settled: (taskId: string, spentUsd: number) => void,
  ) {
    const config = input.attempts!;
    const { workflowId } = workflowInfo();
    this.rows = Array.from({ length: config.count }, (_, i) => {
      const name = attemptName(i);
      const variant = describeVariant(variantOf(config, i));
      return { name, workflowId: attemptWorkflowId(workflowId, name), state: 'pending', ...(variant ? { variant } : {}), costUsd: 0 };
    });
    setHandler(taskUpdateSignal, (update) => {
      const row = this.rowOfTask(update.taskId);
      if (!row || ENDED.includes(row.state)) return;
      const state = update.state === 'waiting' || update.state === 'budget_exceeded' ? 'waiting' : 'running';
      const where = state === 'waiting' ? `waits at ${update.waitingFor?.gate ?? 'a gate'}` : update.phase;
      const moved = where !== undefined && (state !== row.state || where !== this.where.get(row.name));
      row.state = state;
      if (where !== undefined) this.where.set(row.name, where);
      this.spending.set(row.name, { tokens: update.tokens, costUsd: update.costUsd, turns: this.spending.get(row.name)?.turns ?? 0 });
      row.costUsd = update.costUsd;
      this.changed(moved ? `attempt ${row.name} · ${where}` : undefined);
    });
  }

  /** The task id attempt `name` runs under: its cassette lines, grants and prompts name it (`T1-B`). */
  taskIdOf(name: string): string {
    return `${this.input.taskId}-${name}`;
  }

  rowOfTask(taskId: string): AttemptRow | undefined {
    return this.rows.find((r) => this.taskIdOf(r.name) === taskId);
  }

  /** What the attempts spent together: the best-of run's own spending. */
  spent(): { tokens: TaskSpending['tokens']; costUsd: number; turns: number } {
    let total = { tokens: ZERO_USAGE, costUsd: 0, turns: 0 };
    for (const s of this.spending.values()) total = { tokens: addUsage(total.tokens, s.tokens), costUsd: addUsd(total.costUsd, s.costUsd), turns: total.turns + s.turns };
    return total;
  }

  allEnded(): boolean {
    return this.rows.every((r) => ENDED.includes(r.state));
  }

  running(): AttemptRow[] {
    return this.rows.filter((r) => !ENDED.includes(r.state));
  }

  /** Starts every attempt; `budgeted`: each asks this run for grants before its model calls. */
  async startAll(budgeted: boolean): Promise<void> {
    for (const [i, row] of this.rows.entries()) {
      const handle = await startChild<TaskWorkflow>('taskWorkflow', {
        workflowTaskTimeout: SHORT_WORKFLOW_TASK_TIMEOUT,
        workflowId: row.workflowId,
        staticSummary: clipText(`attempt ${row.name} of ${this.input.taskId}: ${this.input.title}${row.variant ? ` (${row.variant})` : ''}`, SUMMARY_BYTES),
        args: [this.inputFor(i, budgeted)],
        taskQueue: workflowInfo().taskQueue,
        parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
      });
      row.state = 'running';
      handle.result().then(
        (result) => this.ended(row, 'completed', result),
        (err: unknown) => {
          const end = classifyChildFailure(row.name, err);
          if ('failure' in end) this.ended(row, end.failure.kind, end.failure.result, end.failure.message);
        },
      );
    }
    this.changed();
  }

  /** Asks every attempt still running to stop, for `why`; each ends `cancelled` (its worktree removed, its branch kept). */
  async cancelRunning(why: string): Promise<void> {
    for (const row of this.running()) {
      row.note = why;
      try {
        await getExternalWorkflowHandle(row.workflowId).cancel();
      } catch {
        // It ended meanwhile: its result is on its way.
      }
    }
  }

  private ended(row: AttemptRow, state: AttemptRow['state'], result?: TaskResult, message?: string): void {
    row.state = state;
    if (result) {
      this.results.set(row.name, result);
      this.spending.set(row.name, { tokens: result.tokens, costUsd: result.costUsd, turns: result.turns });
      row.costUsd = result.costUsd;
      row.branch = result.branch;
      if (result.commit) row.commit = result.commit;
      if (result.baseSha) row.baseSha = result.baseSha;
      if (result.evidence) row.evidence = result.evidence;
    }
    // A cancelled attempt keeps the reason it was stopped for, a rejected one why it ended, a failed one what failed.
    const note =
      state === 'completed' ? (result?.evidence?.passed === false ? result.verifyCause : undefined)
      : state === 'cancelled' ? row.note
      : state === 'rejected' ? (message?.replace(/^rejected: /, '') ?? result?.verifyCause)
      : (result?.verifyCause ?? message);
    if (note) row.note = note.split('\n')[0].slice(0, 200);
    this.settled(this.taskIdOf(row.name), row.costUsd);
    const e = row.evidence;
    const how = e ? `${e.passed ? 'passed' : 'did not pass'}, ${e.lines} lines` : row.note;
    this.changed(`attempt ${row.name} · ${state}${how ? ` (${how})` : ''}`);
  }

  /** Attempt `i`'s input: the task's, under its own id, with its variant, its own cap and no attempts of its own. */
  private inputFor(i: number, budgeted: boolean): TaskInput {
    const { attempts, budget: _whole, runBudgeted: _byRoadmap, ...task } = this.input;
    const config = attempts!;
    const name = attemptName(i);
    const variant = variantOf(config, i);
    const models = variant.model ? Object.fromEntries(Object.keys(task.models).map((phase) => [phase, variant.model!])) : task.models;
    return {
      ...task,
      taskId: this.taskIdOf(name),
      description: variant.hint ? `${task.description}\n\n(Attempt ${name} of ${config.count}: ${variant.hint})` : task.description,
      models,
      ...(config.attemptBudgetUsd !== undefined ? { budget: { usd: config.attemptBudgetUsd } } : {}),
      ...(budgeted ? { runBudgeted: true } : {}),
      // Evidence is measured against the base (tests fixed and broken): the base's verify runs once for all attempts (it is cached per base).
      verifyBaseline: true,
      attempt: { name, of: workflowInfo().workflowId, variant },
    };
  }
}
