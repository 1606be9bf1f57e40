import { dependencyDepths, dependentsOf } from '../../core/roadmap/dependency-phases';
import type { RoadmapTask } from '../../core/roadmap/roadmap';
import type { RoadmapTaskState } from '../../core/roadmap/roadmap-types';
import type { RunStatus, TokenUsage } from '../../core/run/run-types';
import { addUsage, addUsd, ZERO_USAGE } from '../../core/run/usage';
import type { TaskSpending, TaskUpdate } from '../../core/run/definitions';

/** States a roadmap task can no longer leave. */
const ENDED = new Set<RoadmapTaskState['state']>(['completed', 'failed', 'rejected', 'cancelled', 'skipped']);

/**
 * The state of every task of a roadmap run: which may start (its dependencies have landed),
 * which wait, which ended and why. Deterministic bookkeeping only; the workflow acts on it.
 */
export class RoadmapBoard {
  readonly tasks: RoadmapTaskState[];
  private readonly depth: Map<string, number>;
  /** Live updates of running tasks (state, gate, phase), from their taskUpdate signals. */
  private readonly live = new Map<string, TaskUpdate>();
  /** A finalize run's spending adds to its task's (set by the workflow: runs recorded before replay without it). */
  finalizeAdds = false;

  constructor(
    private readonly plan: RoadmapTask[],
    carried?: RoadmapTaskState[],
  ) {
    this.depth = dependencyDepths(plan.map((t) => ({ id: t.id, needs: t.depends })));
    const before = new Map((carried ?? []).map((t) => [t.id, t]));
    this.tasks = plan.map(
      (t) => before.get(t.id) ?? { id: t.id, state: t.done ? 'completed' : 'pending', tokens: ZERO_USAGE, costUsd: 0 },
    );
  }

  get(id: string): RoadmapTaskState {
    return this.tasks.find((t) => t.id === id)!;
  }

  /** Pending tasks whose dependencies have all landed, shallowest first, then in roadmap order. */
  ready(): RoadmapTask[] {
    return this.plan
      .filter((t) => this.get(t.id).state === 'pending' && t.depends.every((d) => this.get(d).state === 'completed'))
      .sort((a, b) => this.depth.get(a.id)! - this.depth.get(b.id)!);
  }

  /**
   * The tasks this run has landed (they have a landing commit; ticked before it, they have none)
   * or has under way: what `maxTasks` counts (docs/roadmaps.md#landing-part-of-a-roadmap).
   */
  taken(): number {
    return this.tasks.filter((t) => t.state === 'running' || (t.state === 'completed' && t.commit !== undefined)).length;
  }

  /** The open tasks not started (yet). */
  notStarted(): string[] {
    return this.tasks.filter((t) => t.state === 'pending').map((t) => t.id);
  }

  /** True when no task can change any more. */
  finished(): boolean {
    return this.tasks.every((t) => ENDED.has(t.state));
  }

  update(id: string, change: Partial<RoadmapTaskState>): void {
    Object.assign(this.get(id), change);
  }

  /** The ids of the tasks running now. */
  running(): string[] {
    return this.tasks.filter((t) => t.state === 'running').map((t) => t.id);
  }

  /** The phase a running task reported last. */
  phaseOf(id: string): string | undefined {
    return this.live.get(id)?.phase;
  }

  /** Takes a running task's update; returns the step worth showing (a new gate or phase), if any. */
  noteUpdate(update: TaskUpdate): string | undefined {
    const before = this.live.get(update.taskId);
    this.live.set(update.taskId, update);
    if (update.waitingFor && update.waitingFor.gate !== before?.waitingFor?.gate) {
      return `${update.taskId} waits at gate "${update.waitingFor.gate}"${update.waitingFor.reason ? `: ${update.waitingFor.reason}` : ''}`;
    }
    if (update.phase && update.phase !== before?.phase && update.state === 'running') return `${update.taskId} ${update.phase}`;
    return undefined;
  }

  /** Takes what a running task says it has spent, outside an update (a grant request carries it). */
  noteSpending(id: string, spent: TaskSpending): void {
    if (this.get(id).state !== 'running') return;
    const live = this.live.get(id) ?? { taskId: id, state: 'running', waitingFor: null };
    this.live.set(id, { ...live, tokens: spent.tokens, costUsd: spent.costUsd });
  }

  /** Records how a task ended (its usage from its result); its live updates are over. */
  ended(id: string, result: { tokens: TokenUsage; costUsd: number; preExistingFailures?: string[] } | undefined): void {
    const preExisting = result?.preExistingFailures?.length ? { preExistingFailures: result.preExistingFailures } : {};
    this.update(id, { tokens: result?.tokens ?? this.get(id).tokens, costUsd: result?.costUsd ?? 0, ...preExisting });
    this.live.delete(id);
  }

  /** Ends a task that failed or was rejected, and skips every task that depends on it. */
  fail(id: string, state: 'failed' | 'rejected' | 'cancelled', error: string): void {
    this.update(id, { state, error });
    for (const dependent of dependentsOf(this.plan.map((t) => ({ id: t.id, needs: t.depends })), id)) {
      if (this.get(dependent).state === 'pending') this.update(dependent, { state: 'skipped', blockedBy: id });
    }
  }

  /**
   * What task `t` has spent: what its ended runs spent, plus what its running one says. A task
   * that ended holds its result; during its finalize run (docs/roadmaps.md#finalize) that run's
   * spending adds to it. Before `finalizeAdds`, a finalize run's replaced it.
   */
  private spentOf(t: RoadmapTaskState): { tokens: TokenUsage; costUsd: number } {
    const live = ENDED.has(t.state) ? undefined : this.live.get(t.id);
    if (!live) return t;
    if (!this.finalizeAdds) return live;
    return { tokens: addUsage(t.tokens, live.tokens), costUsd: addUsd(t.costUsd, live.costUsd) };
  }

  /** Tokens and cost of every task, ended ones from their results and running ones from their updates. */
  spent(): { tokens: TokenUsage; costUsd: number } {
    let tokens: TokenUsage = ZERO_USAGE;
    let costUsd = 0;
    for (const t of this.tasks) {
      const usage = this.spentOf(t);
      tokens = addUsage(tokens, usage.tokens);
      costUsd = addUsd(costUsd, usage.costUsd);
    }
    return { tokens, costUsd };
  }

  /** The tasks for the `status` query, with the live state, phase and spending of running ones. */
  statusTasks(): NonNullable<RunStatus['tasks']> {
    return this.tasks.map((t) => {
      const live = this.live.get(t.id);
      const running = t.state === 'running' && live;
      const { tokens, costUsd } = this.spentOf(t);
      return { ...t, tokens, costUsd, state: running ? live.state : t.state, phase: running ? live.phase : t.phase };
    });
  }

  /** Where a decision for `taskId` (or, without one, for the task that waits) goes, for the `decide` update. */
  decisionTarget(taskId: string | undefined): { gate: string; taskId: string } | 'no such task' | undefined {
    if (taskId !== undefined && !this.tasks.some((t) => t.id === taskId)) return 'no such task';
    const update = taskId !== undefined ? (this.get(taskId).state === 'running' ? this.live.get(taskId) : undefined) : this.waitingTask();
    return update?.waitingFor ? { gate: update.waitingFor.gate, taskId: update.taskId } : undefined;
  }

  /** The first running task that waits at a gate, if any. */
  waitingTask(): TaskUpdate | undefined {
    return this.tasks.map((t) => (t.state === 'running' ? this.live.get(t.id) : undefined)).find((u) => u?.waitingFor);
  }
}
