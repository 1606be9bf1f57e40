/**
 * `dex list`'s rows: a visibility query from the filters, one row per run from its search
 * attributes (core/run/search-attributes.ts) and memo, and the text that shows them, runs waiting
 * for a person first. Pure, apart from reading what `client.workflow.list()` returned.
 */
import type { WorkflowExecutionInfo } from '@temporalio/client';
import { repoNameOf } from '../../core/run/ids';
import { InvalidInput } from '../../core/run/invalid-input';
import type { RunState } from '../../core/run/run-types';
import { DEX_COST_USD, DEX_KIND, DEX_PHASE, DEX_REPO, DEX_STATE, DEX_WAITING_FOR } from '../../core/run/search-attributes';
import { formatUsd } from '../../core/text/spending';
import { PLAN_KINDS, planKindOf, type PlanKindName } from '../plan-kinds';

/** The states `--state` takes (docs/interfaces.md#people-in-the-loop). */
const RUN_STATES: readonly RunState[] = [
  'running',
  'waiting',
  'paused',
  'completed',
  'failed',
  'rejected',
  'cancelled',
  'budget_exceeded',
  'rolled_back',
];

/** The states of an open run: a closed run's DexState that says one of them is stale. */
const LIVE_STATES = new Set(['running', 'waiting', 'paused']);

/** States in which a run waits for a person. */
const WAITING_STATES = new Set(['waiting', 'budget_exceeded']);

/** What `dex list` may be asked to show. */
interface ListFilters {
  state?: string;
  kind?: string;
  repo?: string;
}

/** One run as `dex list` shows it (and `--json` gives it). */
export interface RunRow {
  id: string;
  kind: string;
  /** dex's state (`DexState`), or Temporal's status, lower case, for a run that has none or was ended from outside. */
  state: string;
  title?: string;
  repo?: string;
  phase?: string;
  /** The gate it waits at. */
  waitingFor?: string;
  costUsd?: number;
  started: string;
  closed?: string;
  /** For a run that waits for a person: the command that answers it. */
  answer?: string;
  /** Its page in the Web UI, when dex knows where the UI is. */
  webUi?: string;
}

/** The visibility query for `filters`: only dex's plan kinds; an input error (exit 2) for a state, kind or repo it cannot ask for. */
export function listQuery(filters: ListFilters): string {
  const clauses: string[] = [];
  if (filters.kind !== undefined) {
    if (!Object.hasOwn(PLAN_KINDS, filters.kind)) throw new InvalidInput(`unknown --kind "${filters.kind}": use ${Object.keys(PLAN_KINDS).join(', ')}`);
    // The workflow type, not DexKind: it is there on every run, also on runs older than the search attributes.
    clauses.push(`WorkflowType = "${PLAN_KINDS[filters.kind as PlanKindName].workflowType}"`);
  } else {
    clauses.push(`WorkflowType IN (${Object.values(PLAN_KINDS).map((k) => `"${k.workflowType}"`).join(', ')})`);
  }
  if (filters.state !== undefined) {
    if (!(RUN_STATES as readonly string[]).includes(filters.state)) throw new InvalidInput(`unknown --state "${filters.state}": use ${RUN_STATES.join(', ')}`);
    clauses.push(`${DEX_STATE.name} = "${filters.state}"`);
    // A run ended from outside (terminated, timed out) never updated its DexState: only an open run is still in a live state.
    if (LIVE_STATES.has(filters.state)) clauses.push('ExecutionStatus = "Running"');
  }
  if (filters.repo !== undefined) {
    // A path names its repository by its last part, made safe, as DexRepo does.
    if (!filters.repo.replace(/\/+$/, '') || /["'\\]/.test(filters.repo)) throw new InvalidInput(`--repo "${filters.repo}" is not a repository's name`);
    const repo = repoNameOf(filters.repo);
    clauses.push(`${DEX_REPO.name} = "${repo}"`);
  }
  return clauses.join(' AND ');
}

/** Temporal's status of a run, as a dex state would read (`RUNNING` → `running`). */
const temporalState = (info: Pick<WorkflowExecutionInfo, 'status'>): string => info.status.name.toLowerCase();

/** The command that answers a run waiting in `state` at `gate` (a best-of-N task's `choose` gate also takes `dex choose`, docs/attempts.md#the-choose-gate). */
function answerFor(id: string, state: string, gate?: string): string {
  if (state === 'budget_exceeded') return `dex approve ${id} --budget-usd N`;
  return gate === 'choose' ? `dex approve ${id}  (or: dex choose ${id} ATTEMPT)` : `dex approve ${id}  (or: dex reject ${id} --reason TEXT)`;
}

/** A run's state: its `DexState`, or Temporal's status for a run without one or ended from outside. */
export function runState(info: Pick<WorkflowExecutionInfo, 'typedSearchAttributes' | 'status'>): string {
  const dexState = info.typedSearchAttributes.get(DEX_STATE);
  // A run ended from outside (terminated, timed out) never said so itself: its last DexState is stale.
  const live = info.status.name === 'RUNNING';
  return dexState && (live || !LIVE_STATES.has(dexState)) ? dexState : temporalState(info);
}

/** One run's row, from its search attributes and memo; `DexState` falls back to Temporal's status. */
export function runRow(info: WorkflowExecutionInfo): RunRow {
  const attrs = info.typedSearchAttributes;
  const memo = (info.memo ?? {}) as { title?: unknown; repo?: unknown };
  const live = info.status.name === 'RUNNING';
  const state = runState(info);
  const waitingFor = attrs.get(DEX_WAITING_FOR) || undefined;
  const text = (value: unknown): string | undefined => (typeof value === 'string' && value ? value : undefined);
  return {
    id: info.workflowId,
    kind: attrs.get(DEX_KIND) ?? Object.entries(PLAN_KINDS).find(([, k]) => k.workflowType === info.type)?.[0] ?? info.type,
    state,
    title: text(memo.title),
    repo: attrs.get(DEX_REPO) ?? text(memo.repo),
    phase: attrs.get(DEX_PHASE) || undefined,
    waitingFor: live ? waitingFor : undefined,
    costUsd: attrs.get(DEX_COST_USD),
    started: info.startTime.toISOString(),
    closed: info.closeTime?.toISOString(),
    answer: live && WAITING_STATES.has(state) ? answerFor(info.workflowId, state, waitingFor) : undefined,
  };
}

/** True for the runs `dex list` shows: dex's plan kinds, not a layer's per-target children. */
export const isDexRun = (info: WorkflowExecutionInfo): boolean => planKindOf(info.type) !== undefined;

/**
 * The rows as text: the runs waiting for a person first, each with its answer and page, with a
 * link to the Web UI's list of them (`waitingList`), then every run, newest first.
 */
export function renderRunList(rows: RunRow[], waitingList?: string): string {
  if (rows.length === 0) return 'no runs';
  const waiting = rows.filter((r) => r.answer);
  const cost = (r: RunRow) => (r.costUsd === undefined ? '' : formatUsd(r.costUsd));
  const table = rows.map((r) => [
    r.started.slice(0, 16).replace('T', ' '),
    r.state,
    r.kind,
    cost(r),
    r.id,
    [r.title, r.repo && r.kind !== 'layer' && r.kind !== 'sheet' ? `on ${r.repo}` : undefined, r.waitingFor ? `at gate ${r.waitingFor}` : r.phase && r.state === 'running' ? `in ${r.phase}` : undefined]
      .filter(Boolean)
      .join(' · '),
  ]);
  const widths = table[0].map((_, col) => Math.max(...table.map((row) => row[col].length)));
  const lines = table.map((row) => row.map((c, col) => (col === row.length - 1 ? c : c.padEnd(widths[col]))).join('  ').trimEnd());
  if (waiting.length === 0) return lines.join('\n');
  return [
    waitingList ? `waiting for you (in the Web UI: ${waitingList}):` : 'waiting for you:',
    ...waiting.flatMap((r) => [
      `  ${r.id}${r.waitingFor ? ` at gate ${r.waitingFor}` : ''}${r.state === 'budget_exceeded' ? ' (over budget)' : ''}: ${r.answer}`,
      ...(r.webUi ? [`    ${r.webUi}`] : []),
    ]),
    '',
    ...lines,
  ].join('\n');
}
