import type { Agent, ClaudeSetup } from './agent-engine';
import type { AttemptChoice, AttemptEvidence, AttemptRow, AttemptsConfig, AttemptVariant } from './attempts';
import type { ReviseRequest } from '../forge/review';
/**
 * Types of task runs (`taskWorkflow`): the task's input, its limits, the completion a phase
 * ends with, its worktree and what it reports. Plain data: it crosses workflow history as JSON.
 */
import type { Budget, GateConfig, LlmSpec, RunState, RunStatus, TokenUsage } from '../run/run-types';
import type { MemoryRef } from '../run/run-memory';
import type { SandboxPolicy } from '../safety/sandbox-policy';
import type { SetupConfig } from '../run/setup-types';
import type { ForgeRepository } from '../fleet/repo-locator';
import type { WorkerMove } from '../fleet/placement-types';
import type { CheckResult, ChecksConfig } from './project-checks';

/** The completion object a phase ends with (docs/interfaces.md#the-agent-and-the-model). */
export type Completion =
  | { status: 'complete'; summary: string }
  | { status: 'blocked'; reason: string }
  | { status: 'continue'; reason: string }
  /** The step's pattern does not fit the work: re-plan the remaining steps (docs/roadmaps.md#the-planner-and-escalate). */
  | { status: 'escalate'; reason: string };

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
  /**
   * A task on a forge repository (docs/fleet.md): any worker of the fleet takes it, mirrors the
   * repository and works in a worktree of its mirror; `repoPath` is then the repository's git URL.
   */
  repo?: ForgeRepository;
  /** With `repo`: the fleet's queue of task slots, where a worker is asked for (core/fleet/placement-types.ts fleetQueueOf). */
  fleetQueue?: string;
  llm: LlmSpec;
  /** Model per phase; `default` applies when a phase has none. */
  models: Record<string, string>;
  /** Extended thinking in these phases (docs/roadmaps.md#models-and-thinking); thinking tokens count as output. */
  thinking?: ThinkingConfig;
  maxTokens: number;
  /** Shell commands that must all pass for the phase to count as done. */
  verify: string[];
  /**
   * `dex.config.yaml` has no `verify:`: setup picks the project's test commands from the worktree
   * (docs/real-repositories.md#verify-without-configuration), which then stand in for `verify`.
   * Absent in runs started before dex picked them, and with `setup: false` (nothing runs setup).
   */
  detectVerify?: boolean;
  /**
   * The client looked for the project's test commands itself (`setup: false`) and found none: the
   * task says `verify: none found` and waits at the `unverified` gate before it ends
   * (docs/real-repositories.md#no-test-command-found).
   */
  verifyNoneFound?: boolean;
  /**
   * The project's own checks besides its tests (lint, typecheck, build) that setup picks, as
   * `checks:` of the config turns them on (docs/real-repositories.md#checks-besides-tests).
   * Absent in runs started before dex ran them: those run none.
   */
  checks?: ChecksConfig;
  /** Model turns a phase may take before it fails. */
  maxIterations: number;
  /** Retries of failed checks (through the retry map), and, counted apart, of rejects that ask for one (docs/roadmaps.md). */
  maxRetries: number;
  gates: { beforePhase?: GateConfig; afterVerify?: GateConfig };
  toolLimits: ToolLimits;
  /** The phases (or a task type's steps) in order. @default ["implement"] */
  phases?: string[];
  /** The task type whose step pattern `phases` is, shown in status as steps. */
  type?: string;
  /** A cheap model picks the type of a task that has none before its first phase, and re-plans on `escalate`. */
  planner?: { model: string };
  /** Where a failed phase goes back to. @default test/review/validate → implement, design → spec */
  retryMap?: Record<string, string>;
  /** Spending limit of this task: every model call's worst case must fit in what is left of it. */
  budget?: Budget;
  /** The task spends from its roadmap's run budget: it asks the roadmap for grants before model calls. */
  runBudgeted?: boolean;
  /** A run that takes up an earlier one at a phase (`dex retry ID --from PHASE`, core/task/rewind.ts). */
  rewind?: { fromWorkflowId: string; fromPhase: string; baseSha: string; note?: string };
  /** Verify runs once on the base commit first; failures it already had do not block the task (docs/roadmaps.md#baseline-aware-verify). */
  verifyBaseline?: boolean;
  /** Runaway protection: stop a phase and wait at a gate. */
  runaway?: RunawayLimits;
  /** How the worktree gets its dependencies before the first phase (docs/real-repositories.md); `false`: no setup. @default detected */
  setup?: SetupConfig | false;
  /** How the agent's commands and verify are confined. @default DEFAULT_SANDBOX */
  sandbox?: SandboxPolicy;
  /** Which agent works each phase (`default` for the others; docs/claude-code.md); absent: dex's own in every phase. */
  agents?: Record<string, Agent>;
  /** Which of the person's Claude Code set-up a Claude Code session sees. @default only the repository's */
  claude?: ClaudeSetup;
  /** Globs of paths whose changes wait for a person before they are committed (dex.config.yaml always). */
  protectedPaths?: string[];
  /** Set for a roadmap's finalize run: no phases, only merging the target into the task's branch (docs/roadmaps.md#finalize). */
  finalize?: FinalizeRequest;
  /** Set for a fix-CI run of a landing through a pull request: one `fix-ci` phase on the task's existing branch (docs/landing-through-prs.md). */
  fixCi?: FixCiRequest;
  /** A branch the task starts from instead of the repository's HEAD: a person's pull request dex was asked to work on (docs/forge-triggers.md#asking-on-a-pull-request). */
  fromBranch?: string;
  /** Set for a revise run: one `revise` phase on the task's existing branch, told a person's review of its pull request (docs/forge-triggers.md#reviews-answered-on-the-same-pr). */
  revise?: ReviseRequest;
  /** Memory shown in first prompts, and kept by `remember` (docs/roadmaps.md#memory); absent in runs started before memory: none. */
  memory?: MemoryRef;
  /**
   * How long after its last word to its roadmap a task holds back a model call's spending
   * (docs/roadmaps.md#what-a-roadmap-shows-of-its-spending). Tests set it; `dex run` leaves the default.
   * @default 30000
   */
  holdSpendingMs?: number;
  /** Best of N (docs/attempts.md): this task runs as `count` attempts at once, and the best by evidence lands. */
  attempts?: AttemptsConfig;
  /** Set for one attempt of a best-of-N task: its letter, its parent's run and what differs in it (docs/attempts.md). */
  attempt?: { name: string; of: string; variant: AttemptVariant };
}

/** What a finalize run merges into the task's existing branch, and how often the model may try. */
export interface FinalizeRequest {
  /** The commit to merge (the base branch's newest when the landing found the branch behind). */
  target: string;
  /** The target's name for prompts and commit messages (`main`, `origin/main`). */
  targetName: string;
  /** Which finalize run of this task this is (1, 2, …): keeps transcripts and checkpoint keys apart. */
  round: number;
  /** Finalize phase attempts before the landing waits at the `merge` gate. @default 2 */
  maxAttempts: number;
}

/** What a fix-CI run is told: the pull request's failing checks and their logs. */
export interface FixCiRequest {
  /** The pull request, as the prompt names it (`PR #12`). */
  pullRequest: string;
  /** The commit the checks failed on. */
  sha: string;
  /** Each failing check: its name, its log's last lines and where the whole (bounded) log is stored. */
  failures: { name: string; excerpt: string; ref: string; url?: string }[];
  /** Which fix-CI run of this task this is (1, 2, …): keeps transcripts and checkpoint keys apart. */
  round: number;
}

/** Extended thinking for some phases: the turns of those phases think for up to `budgetTokens` first. */
export interface ThinkingConfig {
  phases: string[];
  budgetTokens: number;
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
  /** What made verify fail last, in a line or three (the failed test and its message, or the first error line). */
  verifyCause?: string;
  /** The task's type, when it had one or the planner chose it (as its `status` showed it). */
  type?: string;
  /** A typed task's steps as it ended: those completed and those it never reached. */
  steps?: RunStatus['steps'];
  /** With `verifyBaseline`: the last verify's failures, those the base already had and the task's own. */
  verify?: RunStatus['verify'];
  /** The commit the task's branch started from (what `dex diff` compares against). */
  baseSha?: string;
  /** With `verifyBaseline`: the verify failures the base commit already had, which did not block the task. */
  preExistingFailures?: string[];
  /** What setup did, in one line (`npm from cache 0.3 s`; docs/real-repositories.md). */
  setup?: string;
  /** The verify commands setup picked, when the config had none: `npm test (detected)`, or `none found`. */
  verifyDetected?: string;
  /** How the project's own checks besides its tests last ran, as `dex status` shows it: `lint passed · build failed`. */
  checks?: string;
  /** Who let a task with no test command found end at the `unverified` gate (docs/real-repositories.md#no-test-command-found). */
  unverifiedApprovedBy?: string;
  /** A fleet task: the worker it ended on, and its moves from lost workers (docs/fleet.md#what-a-lost-worker-costs). */
  worker?: string;
  moves?: WorkerMove[];
  /** The tail of a failed setup's output (the task then stopped before any model call). */
  setupTail?: string;
  /** An attempt of a best-of-N task: what it proved, measured as it ended (docs/attempts.md#how-the-choice-is-made). */
  evidence?: AttemptEvidence;
  /** A best-of-N task: every attempt as it ended, and which one was chosen and why (`branch` is the chosen one's). */
  attempts?: AttemptRow[];
  chosen?: AttemptChoice;
}

/** A prepared git worktree for one task. */
export interface Worktree {
  path: string;
  branch: string;
  /** The commit the branch started from: the first checkpoint to roll back to. */
  baseSha: string;
}

/** Output of the `verify` activity; the full report is a stored artifact. */
export interface VerifyResult {
  passed: boolean;
  artifactId: string;
  commands: { command: string; exitCode: number | null; timedOut: boolean; durationMs: number }[];
  /** The last lines of the failing command's output, short. */
  tail: string;
  /**
   * What made it fail, in a line or three picked from the failing command's whole output (the
   * failed test and its message, or the first error line): the tail alone often holds only stack
   * frames. Absent when it passed, when the output names no cause, and in results of older releases.
   */
  cause?: string;
  /** With a baseline: the failures the base already had, which do not fail the verify. */
  preExisting?: string[];
  /** With a baseline: the failures that are new, which do. */
  newFailures?: string[];
  /** The project's own checks besides its tests, each as it ran (docs/real-repositories.md#checks-besides-tests); absent without checks. */
  checks?: CheckResult[];
  /** With checks: whether the test commands passed, whatever the checks did. */
  testsPassed?: boolean;
}
