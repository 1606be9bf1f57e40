/**
 * Types of task runs (`taskWorkflow`): the task's input, its limits, the completion a phase
 * ends with, its worktree and what it reports. Plain data: it crosses workflow history as JSON.
 */
import type { Budget, GateConfig, LlmSpec, RunState, TokenUsage } from './run-types';
import type { SandboxPolicy } from './sandbox-policy';

/** The completion object a phase ends with (docs/interfaces.md#the-agent-and-the-model). */
export type Completion =
  | { status: 'complete'; summary: string }
  | { status: 'blocked'; reason: string }
  | { status: 'continue'; reason: string };

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

/** When a phase is stopped as a runaway. */
export interface RunawayLimits {
  /** The same verify failure this many times in a row. @default 3 */
  sameFailure: number;
  /** This many tool turns in a row with no change to the worktree. @default 8 */
  noChangeTurns: number;
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
  /** A failed task's worktree, kept as the agent left it for a person to inspect. */
  worktreePath?: string;
  /** The tail of the last failing verify command's output, when verify failed last. */
  verifyTail?: string;
  /** The commit the task's branch started from (what `dex diff` compares against). */
  baseSha?: string;
}

/** A prepared git worktree for one task. */
export interface Worktree {
  path: string;
  branch: string;
  /** The commit the branch started from: the first checkpoint to roll back to. */
  baseSha: string;
}
