/**
 * The data of a sheet run (docs/interfaces.md#plans-workflows-and-ids, `sheetWorkflow`): what the client plans and hands to
 * the workflow, and what the workflow reports. Plain JSON: it crosses workflow history.
 */
import type { LlmSpec, RunState, RunStatus, TokenUsage } from '../run/run-types';
import type { TaskInput } from '../task/task-types';

/** How a statement (or its undo) runs, with `@symbol` references still in its text. */
export type StatementAction =
  | { run: 'shell'; command: string }
  | { run: 'llm'; prompt: string; model: string; maxTokens: number }
  /** A child `taskWorkflow`; its title and description may hold `@symbols`. */
  | { run: 'task'; task: TaskInput };

/**
 * Where a statement stands in the sheet file, 1-based: its first character and its last
 * (inclusive), so a person or an editor can jump to it (docs/sheets.md#the-result).
 */
export interface SourceSpan {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}

/** One statement as planned: where it stands in the file and in the DAG. */
export interface PlannedStatement {
  /** Position in the (expanded) list of statements, from 0: the index of `phases`. */
  index: number;
  /** As written; a `for_each` copy's is `<id>.<key>` (docs/sheets.md#template-over-a-set-for_each). */
  id: string;
  /** The statement in the file (a copy's template); absent when the sheet came from no file. */
  span?: SourceSpan;
  /** The statement's text as written, before any substitution: its command, prompt or title. */
  source: string;
  /** The `for_each` target this copy is for. */
  target?: string;
  /** 0 with no dependencies, else 1 + the deepest statement it needs. */
  depth: number;
  /** The symbol it produces (without `@`). */
  produces?: string;
  /** The symbols its action and undo read (without `@`). */
  consumes: string[];
  /** Ids of the statements that produce what it consumes. */
  needs: string[];
  action: StatementAction;
  undo?: StatementAction;
}

/** Everything a sheet run needs, decided by the client before it starts. */
export interface SheetInput {
  name: string;
  /** The sheet file, so a result can point into it. */
  file?: string;
  /** On a failure, undo every completed statement in reverse order and end `rolled_back`. */
  transaction: boolean;
  /** How many statements of one phase run at once. */
  maxParallel: number;
  /** Wait at the `plan` gate for approve/reject before running anything. */
  confirm: boolean;
  statements: PlannedStatement[];
  /** Statement indexes by depth: phase n holds the statements at depth n. */
  phases: number[][];
  /** Task queue of the host that runs shell commands and model calls. */
  hostQueue: string;
  /** Folder shell statements run in (the sheet file's folder). */
  cwd: string;
  /** Absent when the sheet has no llm statement. */
  llm?: LlmSpec;
  commandTimeoutMs: number;
  /**
   * Events the run's history may reach before it continues as new (docs/sheets.md#continue-as-new).
   * @default 8000 (core/run/history-limit.ts HISTORY_LIMIT)
   */
  historyLimit?: number;
  /** Set by the run before this one of the same chain, when it continued as new. */
  carried?: SheetCarry;
}

/** What a sheet run hands the next run of its chain (docs/sheets.md#continue-as-new): counters and store references, never the values. */
export interface SheetCarry {
  /** Runs of the chain that ended by continuing as new before this one. */
  runs: number;
  /** The phase the next run starts at: the one this run stopped starting statements in. */
  phase: number;
  /** Store artifacts of the earlier runs' {@link SheetChunk}s (core/run/ids.ts sheetChainChunkId), in order. */
  chunks: string[];
  /** Tokens and cost of the earlier runs' statements and undos. */
  tokens: TokenUsage;
  costUsd: number;
  /** The sheet was paused when the run handed over: the next run starts paused. */
  paused?: true;
}

/** What one run of a sheet's chain keeps in the store for the runs after it: the statements that ended in it, and the order they completed in. */
export interface SheetChunk {
  outcomes: StatementOutcome[];
  /** Indexes of the statements that completed, in the order they did: a transaction undoes them newest first. */
  completed: number[];
}

/** A statement that ended, as a run of the chain keeps it: its result's own fields, and why its undo failed. */
export interface StatementOutcome extends Pick<StatementResult, 'index' | 'status' | 'error' | 'value' | 'undo'> {
  undoError?: string;
}

/** What became of one statement. */
type StatementStatus = 'success' | 'failed' | 'skipped';

/** Why a statement failed or was skipped. */
export interface StatementError {
  /** `exit_code`, `timeout`, `model_error`, `task_failed`, `value_too_large`, `blocked`, `aborted`, `rejected`. */
  code: string;
  message: string;
  /** The id of the failed statement this one waited for. */
  blocked_by?: string;
}

/** One statement's outcome in the sheet result. */
export interface StatementResult {
  index: number;
  id: string;
  dag_depth: number;
  /** The statement's text as written (PlannedStatement.source). */
  source?: string;
  /** Where it is in the sheet file (PlannedStatement.span). */
  span?: SourceSpan;
  target?: string;
  status: StatementStatus;
  error?: StatementError;
  /** What it produced (the value of its symbol). */
  value?: string;
  /** `done` once its undo ran, `failed` when the undo failed and its effect remains (transactions only). */
  undo?: 'done' | 'failed';
}

/** The sheet's result (docs/sheets.md). */
export interface SheetResult {
  name: string;
  /** The sheet file the spans point into. */
  file?: string;
  state: RunState;
  phasesCompleted: number;
  phasesTotal: number;
  statements: StatementResult[];
  tokens: TokenUsage;
  costUsd: number;
  error?: string;
}

/** The sheet's `status` query: the shared fields plus each statement's state. */
export interface SheetStatus extends RunStatus {
  kind: 'sheet';
  statements: { id: string; index: number; depth: number; status: StatementStatus | 'pending' | 'running' }[];
}

/** The longest value a statement may produce: values cross workflow history and are substituted into later statements. */
export const VALUE_LIMIT_CHARS = 16_000;

/** What running one statement's action produced (a failure is a result, not an exception). */
export interface ActionOutcome {
  value?: string;
  error?: { code: string; message: string };
  tokens?: TokenUsage;
  costUsd?: number;
}
