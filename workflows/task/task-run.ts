import type { TaskInput, Worktree } from '../../core/task/task-types';
import type { ProjectCheck } from '../../core/task/project-checks';
import type { RunControl } from '../run/run-control';
import type { HostActivities } from './activities';
import type { TaskPlanner } from './planner';
import type { TaskProgress } from './progress';
import type { TaskBudget } from './task-budget';

/**
 * One task run while its phases run: what taskWorkflow makes once (its input, activities, run
 * control, progress, budget and planner), its worktree once startTask made it, and its steps.
 * It is passed down whole; the steps change in one place, {@link TaskRun.replaceSteps}.
 */
export class TaskRun {
  private made: Worktree | undefined;
  /**
   * The commands verify runs: the input's, or, when the config had none, those setup picked
   * (startTask sets them; docs/real-repositories.md#verify-without-configuration).
   */
  verify: string[];
  /** The project's own checks besides its tests that setup picked (docs/real-repositories.md#checks-besides-tests); none until then. */
  checks: ProjectCheck[] = [];
  /** Which checks fail on the task's base commit too, by command, once a failure made the task ask (agent/check-baseline.ts). */
  readonly checksFailingOnBase: Record<string, boolean> = {};

  /** @param steps the phases in order: the same array the run's progress reads for its status. */
  constructor(
    readonly input: TaskInput,
    private readonly steps: string[],
    readonly acts: HostActivities,
    readonly control: RunControl,
    readonly progress: TaskProgress,
    readonly budget: TaskBudget,
    readonly planner: TaskPlanner,
  ) {
    this.verify = input.verify;
  }

  /** The phases (or the task type's steps) in order. */
  get phases(): readonly string[] {
    return this.steps;
  }

  /** The task's worktree; there from startTask on. */
  get worktree(): Worktree {
    if (!this.made) throw new Error('the task has no worktree before startTask made it');
    return this.made;
  }

  set worktree(worktree: Worktree) {
    // A fleet task moved to another worker: its worktree is elsewhere there, and calls made for the old one are relocated.
    if (this.made && this.made.path !== worktree.path) this.formerPaths.push(this.made.path);
    this.made = worktree;
  }

  /** Where the task's worktree was on the workers it left (workflows/run/placement.ts). */
  private readonly formerPaths: string[] = [];

  /** `value` with every path into a former worktree turned into the same path in the current one: a call run again after a move. */
  relocate<T>(value: T): T {
    const now = this.made?.path;
    if (!now || !this.formerPaths.length) return value;
    const move = (v: unknown): unknown => {
      if (typeof v === 'string') {
        const old = this.formerPaths.find((p) => v === p || v.startsWith(`${p}/`));
        return old ? now + v.slice(old.length) : v;
      }
      if (Array.isArray(v)) return v.map(move);
      if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, move(x)]));
      return v;
    };
    return move(value) as T;
  }

  /** The worktree when startTask made it, even if the start then failed (a failed setup keeps it for a person). */
  get worktreeIfMade(): Worktree | undefined {
    return this.made;
  }

  /** Replaces the steps from `index` on: the planner chose the task's type, or planned the rest again. */
  replaceSteps(index: number, steps: readonly string[]): void {
    this.steps.splice(index, this.steps.length - index, ...steps);
  }
}

/** One attempt at one phase of a run. */
export interface PhaseAttempt {
  run: TaskRun;
  phase: string;
  attempt: number;
  /** What the attempt is told first: why a phase runs again, a person's note. */
  retryContext?: string;
  /** Artifacts of earlier phases for this phase's prompt, by prompt variable. */
  artifacts: Record<string, string>;
}
