import type { Agent } from '../task/agent-engine';
/**
 * Types of roadmap runs (`roadmapWorkflow`): the roadmap's input, each task's state in the run,
 * what continue-as-new carries and what the run reports. Plain data: it crosses workflow history as JSON.
 */
import type { Budget, RunState, TokenUsage } from '../run/run-types';
import type { CheckState, PullRequestLanding } from './pull-request-types';
import type { TaskInput } from '../task/task-types';
import type { RoadmapTask } from './roadmap';
import type { IssueRef } from '../forge/issue-run';

/** Everything a roadmap run needs, decided by the client before it starts. */
export interface RoadmapInput {
  repoPath: string;
  /** The roadmap file, relative to the repository. */
  roadmapFile: string;
  /** The repository's name as it appears in ids (`safeName` of its folder), for the tasks' workflow ids. */
  repoName: string;
  /** The short hash of the repository path, roadmap file and text that names this run, for the tasks' workflow ids. */
  roadmapHash: string;
  /** The branch finished tasks land on (the repository's checkout). */
  baseBranch: string;
  /** What every task of the roadmap shares (queue, model, verify, limits, gates). */
  taskDefaults: Omit<TaskInput, 'taskId' | 'title' | 'description' | 'phases' | 'type' | 'budget'>;
  /** Phases per weight. */
  phasesByWeight: Record<'trivial' | 'small' | 'medium' | 'large', string[]>;
  /** Models per weight × phase, over `taskDefaults.models` (docs/roadmaps.md#models-and-thinking). */
  modelsByWeight?: Partial<Record<'trivial' | 'small' | 'medium' | 'large', Record<string, string>>>;
  /** Agents per weight × phase (docs/claude-code.md#choosing-the-agent), over `taskDefaults.agents`. */
  agentsByWeight?: Partial<Record<'trivial' | 'small' | 'medium' | 'large', Record<string, Agent>>>;
  /** Tasks running at once. @default 2 */
  maxParallel: number;
  /**
   * `dex run --max-tasks N`: no task starts once N tasks of this run have landed or are under
   * way; the run then ends listing those it did not start (docs/roadmaps.md#landing-part-of-a-roadmap).
   * Absent: every open task.
   */
  maxTasks?: number;
  /** Continue as new after this many tasks have ended in one run. @default 25 */
  continueAsNewAfterTasks: number;
  /**
   * Events the run's history may reach before it continues as new (docs/roadmaps.md#long-roadmaps).
   * Tests set it; `dex run` leaves the default.
   * @default 8000 (core/run/history-limit.ts HISTORY_LIMIT)
   */
  historyLimit?: number;
  /** Spending limit of each task. */
  taskBudget?: Budget;
  /** Spending limit of the whole run. */
  runBudget?: Budget;
  /** How finished tasks land: finalize attempts, and a remote to push to (docs/roadmaps.md#landing-on-a-remote). */
  land?: LandConfig;
  /** State carried across continue-as-new. */
  carried?: RoadmapCarried;
  /** The tasks themselves, for a run with no roadmap file (an issue's, docs/forge-triggers.md): read from here, and no box to tick. */
  plan?: RoadmapTask[];
  /** A run started from a forge issue: its pull request says `Fixes #N`, and dex's comment on the issue shows the run (docs/forge-triggers.md). */
  issue?: IssueRef;
  /** The run's page in the Web UI, when TEMPORAL_UI_URL names the UI: dex's comments on the forge link it (docs/forge-triggers.md#dex-on-the-pull-request). */
  webUi?: string;
}

/** `land:` in dex.config.yaml, checked by the client. */
export interface LandConfig {
  /** Finalize phase attempts before the `merge` gate. @default 2 */
  finalizeAttempts?: number;
  /** The remote to land on (a name the repository configures, e.g. `origin`); absent, tasks land in the checkout. */
  remote?: string;
  /** The remote's branch. @default the base branch */
  branch?: string;
  /**
   * `push`: push the verified landing commit; `branch`: push the task's branch and describe a merge request;
   * `pr`: open a pull request, wait for CI, merge it (docs/landing-through-prs.md). @default push
   */
  mode?: 'push' | 'branch' | 'pr';
  /** `pr` mode: the forge, the repository on it and how the pull request is merged (docs/landing-through-prs.md). */
  pr?: PullRequestLanding;
  /** `branch` mode: a shell command run after the push (env DEX_BRANCH, DEX_TITLE, DEX_DESCRIPTION_FILE …), e.g. to open a pull request. */
  command?: string;
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
  /** Verify failures its base commit already had, which did not block it (docs/roadmaps.md#baseline-aware-verify). */
  preExistingFailures?: string[];
  /** `land.mode: branch`: the task was proposed for a merge request, not landed (docs/roadmaps.md#landing-on-a-remote). */
  proposed?: ProposedLanding;
  /** `land.mode: pr`: the task's pull request, its checks and what its landing waits for. */
  pullRequest?: PullRequestState;
  tokens: TokenUsage;
  costUsd: number;
}

/** Where a task proposed in branch mode went, and what its landCommand printed. */
export interface ProposedLanding {
  remote: string;
  /** The branch pushed on the remote: `dex/<taskId>`. */
  branch: string;
  /** The branch the merge request targets. */
  target: string;
  /** The merge request's description, on the worker's host (also in the store). */
  descriptionPath: string;
  /** The last line of the landCommand's stdout (e.g. the pull request's URL), when there is a landCommand. */
  commandOutput?: string;
}

/** A task's pull request as the board shows it (docs/landing-through-prs.md). */
interface PullRequestState {
  number: number;
  url: string;
  /** The head commit the checks are of. */
  sha?: string;
  checks: { name: string; state: CheckState }[];
  /** Checks that failed, passed when re-run once, and were let through. */
  flaky?: string[];
  /** What the landing waits for now (`CI on PR #12: build pending, test passed`); absent when it waits for nothing. */
  waiting?: string;
  /** Set once the pull request is merged: the merge commit. */
  merged?: string;
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
  /** With `maxTasks`: the open tasks this run did not start, for a later `dex run` (absent when it started them all). */
  notStarted?: string[];
}
