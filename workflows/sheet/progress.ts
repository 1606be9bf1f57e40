import { workflowInfo } from '@temporalio/workflow';
import { sheetTaskWorkflowId } from '../../core/run/ids';
import type { SheetCarry, SheetChunk, SheetInput, SheetResult, SheetStatus, StatementError, StatementOutcome, StatementResult } from '../../core/sheet/sheet-types';
import type { RunState, RunStatus } from '../../core/run/run-types';
import type { RunControl } from '../run/run-control';
import { RunLedger } from '../run/run-ledger';
import { plural } from '../../core/text/plural';

/** How many of the latest steps the status keeps: a sheet has many short statements. */
const RECENT_STEPS = 30;
/** How much of a value a progress line shows. */
const PREVIEW_CHARS = 60;

type LiveStatus = SheetStatus['statements'][number]['status'];

/** Each statement's state within a sheet run, beside its ledger: the source of the `status` query and the result. */
export class SheetProgress {
  readonly ledger: RunLedger;
  private phase = '';
  private readonly live: LiveStatus[];
  private readonly results: StatementResult[];
  /** The values statements produced, by symbol: what later statements and undos substitute. */
  readonly values: Record<string, string> = {};
  /** Indexes of the completed statements, in the order they completed: a transaction undoes them newest first. */
  readonly completed: number[] = [];
  /** Why an undo failed, by statement index. */
  private readonly undoErrors = new Map<number, string>();
  /** What this run of the chain changed, to hand on when it continues as new (docs/sheets.md#continue-as-new). */
  private readonly mine = { ended: new Set<number>(), completedFrom: 0, bytes: 0 };
  /** Earlier runs of the chain: how their statements ended, as counts. */
  private earlier?: NonNullable<RunStatus['earlier']>;
  /** The child run of each task statement whose task, or undo's task, runs now, by index: where that task's gates wait. */
  private readonly taskRuns = new Map<number, string>();

  constructor(
    private readonly input: SheetInput,
    control: RunControl,
  ) {
    this.ledger = new RunLedger('sheet', control, { recentSteps: RECENT_STEPS });
    this.live = input.statements.map(() => 'pending');
    this.results = input.statements.map((s) => ({
      index: s.index,
      id: s.id,
      dag_depth: s.depth,
      status: 'skipped',
      // Where the statement is written, so a failure can point at it (absent in runs planned before spans).
      ...(s.source !== undefined ? { source: s.source } : {}),
      ...(s.span ? { span: s.span } : {}),
      ...(s.target !== undefined ? { target: s.target } : {}),
    }));
  }

  private step(text: string): void {
    this.ledger.step(text);
  }

  /**
   * Takes over what the earlier runs of the chain did (docs/sheets.md#continue-as-new): their
   * spending, each statement that ended and how, the values produced, the completed list.
   */
  carry(carried: SheetCarry, earlier: SheetChunk): void {
    this.ledger.spend(carried.tokens, carried.costUsd);
    for (const { undoError, ...outcome } of earlier.outcomes) {
      const i = outcome.index;
      this.live[i] = outcome.status;
      this.results[i] = { ...this.results[i], ...outcome };
      if (undoError) this.undoErrors.set(i, undoError);
      const produces = this.input.statements[i].produces;
      if (produces && outcome.status === 'success') this.values[produces] = outcome.value ?? '';
    }
    this.completed.push(...earlier.completed);
    this.mine.completedFrom = this.completed.length;
    const count = (status: LiveStatus) => this.live.filter((l) => l === status).length;
    this.earlier = { done: count('success'), skipped: count('skipped'), failed: count('failed'), runs: carried.runs };
    this.step(`continued as new (run ${carried.runs + 1} of the chain): ${plural(earlier.outcomes.length, 'statement')} ended before`);
  }

  /** What this run hands the next run of its chain: the statements that ended in it, and those it completed. */
  chunk(): SheetChunk {
    const outcomes = [...this.mine.ended].sort((a, b) => a - b).map((i): StatementOutcome => {
      const { index, status, error, value, undo } = this.results[i];
      const undoError = this.undoErrors.get(i);
      return { index, status, ...(error ? { error } : {}), ...(value !== undefined ? { value } : {}), ...(undo ? { undo } : {}), ...(undoError ? { undoError } : {}) };
    });
    return { outcomes, completed: this.completed.slice(this.mine.completedFrom) };
  }

  /** Bytes of what this run would hand on: a run of the chain hands on a bounded amount (core/run/history-limit.ts CARRY_BYTES). */
  get chunkBytes(): number {
    return this.mine.bytes;
  }

  /** Notes a statement that ended (or was undone) in this run, with the bytes of what it says. */
  private ended(i: number, ...texts: (string | undefined)[]): void {
    this.mine.ended.add(i);
    this.mine.bytes += 100 + texts.reduce((n, t) => n + (t?.length ?? 0), 0);
  }

  /** Enters phase `n`. */
  enterPhase(n: number): void {
    this.phase = `phase ${n + 1}/${this.input.phases.length}`;
    this.step(`${this.phase}: ${this.input.phases[n].map((i) => this.input.statements[i].id).join(', ')}`);
  }

  isPending(i: number): boolean {
    return this.live[i] === 'pending';
  }

  get anyFailed(): boolean {
    return this.live.includes('failed');
  }

  start(i: number): void {
    this.live[i] = 'running';
    this.runsTask(i, 'do');
  }

  /** Notes that statement `i`'s undo starts. */
  undoing(i: number): void {
    this.runsTask(i, 'undo');
  }

  /** Notes the child run of statement `i`'s step, when that step is a task. */
  private runsTask(i: number, step: 'do' | 'undo'): void {
    const s = this.input.statements[i];
    if ((step === 'do' ? s.action : s.undo)?.run === 'task') this.taskRuns.set(i, sheetTaskWorkflowId(workflowInfo().workflowId, s.id, step));
  }

  /** Records a statement that completed with `value`, which later statements may substitute. */
  succeed(i: number, value: string): void {
    this.taskRuns.delete(i);
    const produces = this.input.statements[i].produces;
    if (produces) this.values[produces] = value;
    this.completed.push(i);
    this.live[i] = 'success';
    this.results[i] = { ...this.results[i], status: 'success', value };
    this.ended(i, value);
    const preview = value.length > PREVIEW_CHARS ? `${value.slice(0, PREVIEW_CHARS)}…` : value;
    this.step(`${this.results[i].id}: success${produces ? ` → @${produces} = ${JSON.stringify(preview)}` : ''}`);
  }

  fail(i: number, error: StatementError): void {
    this.taskRuns.delete(i);
    this.live[i] = 'failed';
    this.results[i] = { ...this.results[i], status: 'failed', error };
    this.ended(i, error.message);
    this.step(`${this.results[i].id}: failed (${error.code}) ${error.message}`);
  }

  /** Marks a statement that has not run as skipped; an earlier reason stays. */
  skip(i: number, error: StatementError): void {
    if (this.live[i] !== 'pending') return;
    this.live[i] = 'skipped';
    this.results[i] = { ...this.results[i], status: 'skipped', error };
    this.ended(i, error.message);
    this.step(`${this.results[i].id}: skipped (${error.message})`);
  }

  undone(i: number, ok: boolean, message?: string): void {
    this.taskRuns.delete(i);
    this.results[i] = { ...this.results[i], undo: ok ? 'done' : 'failed' };
    if (!ok) this.undoErrors.set(i, message ?? '');
    this.ended(i, message);
    this.step(`${this.results[i].id}: undo ${ok ? 'done' : `failed: ${message}`}`);
  }

  /** True once statement `i`'s undo ran, in this run or an earlier one of the chain. */
  wasUndone(i: number): boolean {
    return this.results[i].undo !== undefined;
  }

  /** The statements whose undo failed, newest first, each with why: the effects that remain. */
  undosFailed(): string[] {
    return [...this.completed].reverse().flatMap((i) => (this.undoErrors.has(i) ? [`"${this.results[i].id}" (its undo failed: ${this.undoErrors.get(i)})`] : []));
  }

  /** The result the sheet ends with. */
  result(): SheetResult {
    const done = this.input.phases.filter((phase) => phase.every((i) => this.results[i].status === 'success')).length;
    const { tokens, costUsd } = this.ledger.spent();
    const { state, error } = this.ledger;
    return {
      name: this.input.name,
      ...(this.input.file ? { file: this.input.file } : {}),
      state,
      phasesCompleted: done,
      phasesTotal: this.input.phases.length,
      statements: this.results,
      tokens,
      costUsd,
      ...(error ? { error } : {}),
    };
  }

  /** The `status` query's answer (docs/interfaces.md#people-in-the-loop, kind `sheet`). */
  status(): SheetStatus {
    const running = this.input.statements.filter((_, i) => this.live[i] === 'running').map((s) => s.id);
    const current = { taskId: this.input.name, ...(this.phase ? { phase: this.phase } : {}), ...(running.length ? { activity: running.join(', ') } : {}) };
    return this.ledger.status(current, {
      kind: 'sheet' as const,
      tasks: this.input.statements.map((s, i) => ({ id: s.id, state: taskState(this.live[i], this.results[i]), ...(this.taskRuns.has(i) ? { workflowId: this.taskRuns.get(i) } : {}) })),
      statements: this.input.statements.map((s, i) => ({ id: s.id, index: s.index, depth: s.depth, status: this.live[i] })),
      ...(this.earlier ? { earlier: this.earlier } : {}),
    });
  }
}

/** A statement's state in the terms of docs/interfaces.md (`tasks` of the status query). */
function taskState(live: LiveStatus, result: StatementResult): RunState {
  if (result.undo === 'done') return 'rolled_back';
  switch (live) {
    case 'pending':
      return 'waiting';
    case 'running':
      return 'running';
    case 'success':
      return 'completed';
    case 'failed':
      return 'failed';
    case 'skipped':
      return 'cancelled';
  }
}
