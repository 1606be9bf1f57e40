/**
 * Types of roadmap runs (`roadmapWorkflow`): the roadmap's input, each task's state in the run,
 * what continue-as-new carries and what the run reports. Plain data: it crosses workflow history as JSON.
 */
import type { Budget, RunState, TokenUsage } from './run-types';
import type { TaskInput } from './task-types';

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
