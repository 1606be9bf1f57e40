import type { SheetInput, SheetResult, SheetStatus, StatementError, StatementResult } from '../../core/sheet/sheet-types';
import type { RunState } from '../../core/run/run-types';
import type { RunControl } from '../run/run-control';
import { RunLedger } from '../run/run-ledger';

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
  }

  succeed(i: number, value: string): void {
    this.live[i] = 'success';
    this.results[i] = { ...this.results[i], status: 'success', value };
    const preview = value.length > PREVIEW_CHARS ? `${value.slice(0, PREVIEW_CHARS)}…` : value;
    const produces = this.input.statements[i].produces;
    this.step(`${this.results[i].id}: success${produces ? ` → @${produces} = ${JSON.stringify(preview)}` : ''}`);
  }

  fail(i: number, error: StatementError): void {
    this.live[i] = 'failed';
    this.results[i] = { ...this.results[i], status: 'failed', error };
    this.step(`${this.results[i].id}: failed (${error.code}) ${error.message}`);
  }

  /** Marks a statement that has not run as skipped; an earlier reason stays. */
  skip(i: number, error: StatementError): void {
    if (this.live[i] !== 'pending') return;
    this.live[i] = 'skipped';
    this.results[i] = { ...this.results[i], status: 'skipped', error };
    this.step(`${this.results[i].id}: skipped (${error.message})`);
  }

  undone(i: number, ok: boolean, message?: string): void {
    this.results[i] = { ...this.results[i], undo: ok ? 'done' : 'failed' };
    this.step(`${this.results[i].id}: undo ${ok ? 'done' : `failed: ${message}`}`);
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
      tasks: this.input.statements.map((s, i) => ({ id: s.id, state: taskState(this.live[i], this.results[i]) })),
      statements: this.input.statements.map((s, i) => ({ id: s.id, index: s.index, depth: s.depth, status: this.live[i] })),
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
