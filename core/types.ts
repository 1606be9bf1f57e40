/**
 * Types shared by the workflow sandbox, the activities and the client.
 * Everything here is plain data: it crosses workflow history as JSON.
 */
import type { SandboxMode, SandboxPolicy } from './sandbox-policy';

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
  | { kind: 'replay'; path: string };

/** The completion object a phase ends with (contract §5). */
export type Completion =
  | { status: 'complete'; summary: string }
  | { status: 'blocked'; reason: string }
  | { status: 'continue'; reason: string };

/** What a person may do at a gate; also the default action of a gate with a deadline. */
export type GateAction = 'approve' | 'reject';

/** A gate's configuration: an optional deadline after which `defaultAction` is taken. */
export interface GateConfig {
  /** How long to wait, e.g. "24h" or "30m"; absent: wait forever. */
  deadline?: string;
  /** @default "reject" */
  defaultAction?: GateAction;
}

/** Limits on the agent's tools. */
export interface ToolLimits {
  /** @default 120000 */
  commandTimeoutMs: number;
  /** @default 16384 */
  outputLimitBytes: number;
}

/** Everything a task run needs, decided by the client before it starts. */
export interface TaskInput {
  taskId: string;
  title: string;
  description: string;
  /** Absolute path of the repository on the host that runs `hostQueue`. */
  repoPath: string;
  /** Task queue of the host that holds the repository and its worktree. */
  hostQueue: string;
  llm: LlmSpec;
  /** Model per phase; `default` applies when a phase has none. */
  models: Record<string, string>;
  maxTokens: number;
  /** Shell commands that must all pass for the phase to count as done. */
  verify: string[];
  /** Model turns a phase may take before it fails. */
  maxIterations: number;
  /** How often a rejected gate sends the phase round again before the task ends `rejected`. */
  maxRetries: number;
  gates: { beforePhase?: GateConfig; afterVerify?: GateConfig };
  toolLimits: ToolLimits;
  /** The phases (or a task type's steps) in order. @default ["implement"] */
  phases?: string[];
  /** The task type whose step pattern `phases` is, shown in status as steps. */
  type?: string;
  /** Where a failed phase goes back to. @default test/review/validate → implement, design → spec */
  retryMap?: Record<string, string>;
  /** Spending limit of this task, checked before every model call. */
  budget?: Budget;
  /** Runaway protection: stop a phase and wait at a gate. */
  runaway?: RunawayLimits;
  /** How the agent's commands and verify are confined. @default DEFAULT_SANDBOX */
  sandbox?: SandboxPolicy;
  /** Globs of paths whose changes wait for a person before they are committed (dex.config.yaml always). */
  protectedPaths?: string[];
}

/** A spending limit in USD and/or tokens (input + output + cache). */
export interface Budget {
  usd?: number;
  tokens?: number;
}

/** When a phase is stopped as a runaway. */
export interface RunawayLimits {
  /** The same verify failure this many times in a row. @default 3 */
  sameFailure: number;
  /** This many tool turns in a row with no change to the worktree. @default 8 */
  noChangeTurns: number;
}

/** The `approve` signal's payload (contract §2). */
export interface ApproveInput {
  note?: string;
  by?: string;
  budgetUsd?: number;
  /** Sent to a roadmap: the task whose gate this is for (default: the task that waits). */
  taskId?: string;
}

/** The `reject` signal's payload (contract §2). */
export interface RejectInput {
  reason: string;
  by?: string;
  /** Sent to a roadmap: the task whose gate this is for (default: the task that waits). */
  taskId?: string;
}

/** Run states (contract §2). */
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

/** The `status` query's answer (contract §2). */
export interface RunStatus {
  kind: 'task' | 'roadmap' | 'layer' | 'sheet';
  state: RunState;
  waitingFor: null | { gate: string; since: string; taskId?: string; reason?: string };
  current: { taskId?: string; phase?: string; turn?: number; activity?: string };
  tokens: TokenUsage;
  costUsd: number;
  /** A roadmap's (or sheet's) items: `pending` before they start, `skipped` when a dependency failed. */
  tasks?: { id: string; state: RunState | 'pending' | 'skipped'; phase?: string; blockedBy?: string }[];
  /** A typed task's steps (design note 003). */
  steps?: { current?: string; completed: string[]; pending: string[] };
  /** Spending limit in force, when there is one. */
  budget?: Budget;
  /** The latest steps, numbered, so a watcher that polls now and then misses none. */
  recent?: { seq: number; text: string }[];
  /** How the agent's commands are confined: `off` marks a run started with --unsafe-no-sandbox. */
  sandbox?: SandboxMode;
  /** Set once the task's checkpoint commit exists. */
  commit?: string;
  branch?: string;
  error?: string;
}

/** What a finished task reports. */
export interface TaskResult {
  taskId: string;
  state: RunState;
  branch: string;
  commit?: string;
  turns: number;
  tokens: TokenUsage;
  costUsd: number;
  verifyPassed: boolean;
  summary?: string;
  error?: string;
}

// ---- activity inputs and outputs (small: large data stays in the store) ----

/** A prepared git worktree for one task. */
export interface Worktree {
  path: string;
  branch: string;
  /** The commit the branch started from: the first checkpoint to roll back to. */
  baseSha: string;
}

/** Follow-up content that becomes the next user message of a transcript. */
export interface FollowUp {
  /** Tool results to send back, by tool_use id, in this order. */
  toolUseIds?: string[];
  /** Stored artifacts (e.g. a verify report) whose text is sent to the model. */
  artifactIds?: string[];
  /** A short note (a person's approval note, a reminder of the completion format). */
  text?: string;
}

/** Input of the `callModel` activity. */
export interface ModelCallInput {
  transcriptId: string;
  /** Sequence number of the user message this call answers; the reply gets `userSeq + 1`. */
  userSeq: number;
  /** Becomes the user message at `userSeq`; absent when it is already stored (the first prompt). */
  followUp?: FollowUp;
  taskId: string;
  phase: string;
  model: string;
  maxTokens: number;
  llm: LlmSpec;
  /** Scope of replay-cassette lines: calls in one scope never take the same line twice. */
  cassetteScope: string;
}

/** Output of the `callModel` activity. */
export interface ModelCallResult {
  stopReason: string | null;
  toolUses: { id: string; name: string }[];
  completion: Completion | null;
  /** The first characters of the reply's text, for progress display. */
  textPreview: string;
  usage: TokenUsage;
  costUsd: number;
  model: string;
  /** True when the reply was already stored by an earlier attempt and no request was made. */
  reused: boolean;
}

/** Input of the `runTool` activity. */
export interface ToolCallInput {
  transcriptId: string;
  /** Sequence number of the assistant message holding the tool_use block. */
  assistantSeq: number;
  toolUseId: string;
  worktreePath: string;
  limits: ToolLimits;
  /** How `run_command` is confined; absent in runs started before sandboxing: the default sandbox. */
  sandbox?: SandboxPolicy;
}

/** Output of the `runTool` activity; the full result stays in the store. */
export interface ToolCallResult {
  name: string;
  isError: boolean;
  preview: string;
  /** The worktree's state after a tool that may change it (absent after read-only tools). */
  fingerprint?: string;
}

/** Output of the `verify` activity; the full report is a stored artifact. */
export interface VerifyResult {
  passed: boolean;
  artifactId: string;
  commands: { command: string; exitCode: number | null; timedOut: boolean; durationMs: number }[];
  /** The last lines of the failing command's output, short. */
  tail: string;
}

// ---- roadmaps ----

/** Everything a roadmap run needs, decided by the client before it starts. */
export interface RoadmapInput {
  repoPath: string;
  /** The roadmap file, relative to the repository. */
  roadmapFile: string;
  /** The branch finished tasks land on (the repository's checkout). */
  baseBranch: string;
  /** What every task of the roadmap shares (queue, model, verify, limits, gates). */
  taskDefaults: Omit<TaskInput, 'taskId' | 'title' | 'description' | 'phases' | 'type' | 'budget'>;
  /** Phases per weight. */
  phasesByWeight: Record<'trivial' | 'small' | 'medium' | 'large', string[]>;
  /** Tasks running at once. @default 2 */
  maxParallel: number;
  /** Continue as new after this many tasks have ended in one run. @default 25 */
  continueAsNewAfterTasks: number;
  /** Spending limit of each task. */
  taskBudget?: Budget;
  /** Spending limit of the whole run. */
  runBudget?: Budget;
  /** State carried across continue-as-new. */
  carried?: RoadmapCarried;
}

/** A roadmap task's state in the run. */
export interface RoadmapTaskState {
  id: string;
  state: RunState | 'pending' | 'skipped';
  phase?: string;
  workflowId?: string;
  commit?: string;
  blockedBy?: string;
  error?: string;
  tokens: TokenUsage;
  costUsd: number;
}

/** What a roadmap run carries into its next run after continue-as-new. */
export interface RoadmapCarried {
  tasks: RoadmapTaskState[];
  runs: number;
  runBudget?: Budget;
}

/** What a finished roadmap reports. */
export interface RoadmapResult {
  state: RunState;
  tasks: RoadmapTaskState[];
  tokens: TokenUsage;
  costUsd: number;
  /** How many workflow runs the roadmap took (1 + continue-as-new count). */
  runs: number;
}
