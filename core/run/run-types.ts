/**
 * What every plan kind shares (docs/interfaces.md#people-in-the-loop): the `status` query's answer, the
 * `approve`/`reject` payloads, gates, budgets, token counts and where model answers come from.
 * Plain data: it crosses workflow history as JSON.
 */
import type { SandboxMode } from '../safety/sandbox-policy';
import type { AttemptChoice, AttemptRow } from '../task/attempts';
import type { WorkerMove } from '../fleet/placement-types';

/** Token counts of one or more model calls, as the Anthropic API reports them. */
export interface TokenUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** Where model answers come from. */
export type LlmSpec =
  | { kind: 'anthropic'; model?: string; baseUrl?: string }
  | { kind: 'replay'; path: string }
  /** The live model, each response also appended to the cassette at `path` (docs/interfaces.md#recording-a-run). */
  | { kind: 'record'; path: string };

/** What a person may do at a gate; also the default action of a gate with a deadline. */
type GateAction = 'approve' | 'reject';

/** A gate's configuration: an optional deadline after which `defaultAction` is taken. */
export interface GateConfig {
  /** How long to wait, e.g. "24h" or "30m"; absent: wait forever. */
  deadline?: string;
  /** @default "reject" */
  defaultAction?: GateAction;
  /** Who answers: a person, or a model (docs/roadmaps.md#ai-gates). @default "person" */
  by?: 'person' | 'model';
  /** The gate's model (`by: model`). @default the task's default model */
  model?: string;
  /** What the gate's model checks, beyond the task itself. */
  instructions?: string;
  /** When the gate's model fails: `ask` a person, `fail` the gate, or let it `pass`. @default "ask" */
  onModelError?: 'ask' | 'fail' | 'pass';
}

/** A spending limit in USD and/or tokens (input + output + cache). */
export interface Budget {
  usd?: number;
  tokens?: number;
}

/** The `approve` signal's payload (docs/interfaces.md#people-in-the-loop). */
export interface ApproveInput {
  note?: string;
  by?: string;
  budgetUsd?: number;
  /** Sent to a roadmap: the task whose gate this is for (default: the task that waits). */
  taskId?: string;
  /** At a best-of-N task's `choose` gate: the attempt to land instead of the one the evidence chose (`dex choose ID B`). */
  choice?: string;
}

/** The `reject` signal's payload (docs/interfaces.md#people-in-the-loop). */
export interface RejectInput {
  reason: string;
  by?: string;
  /** Retry the phase with the reason as context (while retries last) instead of ending the task. */
  retry?: boolean;
  /** Sent to a roadmap: the task whose gate this is for (default: the task that waits). */
  taskId?: string;
}

/** Run states (docs/interfaces.md#people-in-the-loop). */
export type RunState =
  | 'running'
  | 'waiting'
  | 'paused'
  | 'completed'
  | 'failed'
  | 'rejected'
  | 'cancelled'
  | 'budget_exceeded'
  | 'rolled_back';

/** The `status` query's answer (docs/interfaces.md#people-in-the-loop). */
export interface RunStatus {
  kind: 'task' | 'roadmap' | 'layer' | 'sheet';
  state: RunState;
  waitingFor: null | { gate: string; since: string; taskId?: string; reason?: string };
  current: { taskId?: string; phase?: string; turn?: number; activity?: string };
  tokens: TokenUsage;
  costUsd: number;
  /** A roadmap's (or sheet's) items: `pending` before they start, `skipped` when a dependency failed. */
  /** A roadmap's tasks, each with what it has spent so far (running ones' live figures included). */
  tasks?: {
    id: string;
    state: RunState | 'pending' | 'skipped';
    phase?: string;
    blockedBy?: string;
    workflowId?: string;
    tokens?: TokenUsage;
    costUsd?: number;
    /** `land.mode: pr`: the task's pull request, its checks and what its landing waits for. */
    pullRequest?: { number: number; url: string; checks: { name: string; state: string }[]; flaky?: string[]; waiting?: string };
  }[];
  /**
   * A layer run or sheet that continued as new (docs/layers.md#continue-as-new, docs/sheets.md#continue-as-new):
   * the targets or statements its earlier runs ended, as counts (a layer's `tasks` lists this run's
   * targets and the earlier runs' failed ones; a sheet's lists every statement).
   */
  earlier?: { done: number; skipped: number; failed: number; runs: number };
  /** A typed task's steps (docs/roadmaps.md). */
  steps?: { current?: string; completed: string[]; pending: string[] };
  /** Spending limit in force, when there is one. */
  budget?: Budget;
  /**
   * Paused (`pause`): a running run shows it as its state; a run that waits at a gate stays
   * `waiting` (the gate still needs its answer) and stops before its next step once answered.
   */
  paused?: true;
  /** The latest steps, numbered, so a watcher that polls now and then misses none. */
  recent?: { seq: number; text: string }[];
  /** How the agent's commands are confined: `off` marks a run started with --unsafe-no-sandbox. */
  sandbox?: SandboxMode;
  /** A task with `verifyBaseline`: verify failures the base already had, and those that are its own. */
  verify?: { preExisting: string[]; newFailures: string[] };
  /** A task's type, when the planner chose it (docs/roadmaps.md#the-planner-and-escalate). */
  type?: string;
  /** A task whose config has no `verify:`: the commands setup picked, `npm test (detected)`, or `none found`. */
  verifyDetected?: string;
  /** A task with the project's own checks (docs/real-repositories.md#checks-besides-tests): how each last ran, `lint passed · build failed`. */
  checks?: string;
  /** A fleet task: the worker that holds it now, and its moves from lost workers (docs/fleet.md#what-a-lost-worker-costs). */
  worker?: string;
  moves?: WorkerMove[];
  /** A rewound task (`dex retry`): the run and phase it took up. */
  retryOf?: { workflowId: string; phase: string };
  /** Set once the task's checkpoint commit exists. */
  commit?: string;
  branch?: string;
  error?: string;
  /** A best-of-N task (docs/attempts.md): each attempt as it stands, and the choice once made. */
  attempts?: AttemptRow[];
  chosen?: AttemptChoice;
}
