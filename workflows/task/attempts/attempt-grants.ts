import { condition, getExternalWorkflowHandle, setHandler, workflowInfo } from '@temporalio/workflow';
import type { TaskInput } from '../../../core/task/task-types';
import { budgetGrantSignal, budgetRequestSignal, type TaskSpending } from '../../../core/run/definitions';
import { sendGrant } from '../../run/budget-grant';

/**
 * One budget for all the attempts of a best-of-N task (docs/attempts.md#budget-and-stopping):
 * each attempt asks this run for a grant before a model call whose worst case its grant does not
 * cover, as a roadmap's tasks ask the roadmap. The whole is the task's budget, else the cap of
 * each attempt times their number; in a roadmap with a run budget it is asked of the roadmap
 * before the first attempt starts (when its figure is known) or as the attempts ask. A request
 * that does not fit is denied and the budget is cut: the attempts still running stop.
 */
export class AttemptGrants {
  private readonly granted = new Map<string, number>();
  private readonly pending = new Map<string, number>();
  /** What the roadmap granted this run in all; undefined outside a roadmap with a run budget. */
  private fromRoadmap: number | undefined;
  private roadmapDenied = false;
  /** A request did not fit: the attempts still running are to stop. */
  cut = false;

  constructor(
    private readonly input: TaskInput,
    private readonly idOf: (taskId: string) => string | undefined,
    private readonly carry: () => TaskSpending,
  ) {
    setHandler(budgetRequestSignal, ({ taskId, usd }) => {
      if (this.cut) void this.tell(taskId, { denied: true });
      else this.pending.set(taskId, Math.max(usd, this.pending.get(taskId) ?? 0));
    });
    if (!input.runBudgeted || !workflowInfo().parent) return;
    this.fromRoadmap = 0;
    setHandler(budgetGrantSignal, (grant) => {
      if ('denied' in grant) this.roadmapDenied = true;
      else this.fromRoadmap = Math.max(this.fromRoadmap ?? 0, grant.usd);
    });
  }

  /** The attempts must ask for grants: there is a whole to keep them in. */
  get limited(): boolean {
    return this.whole() !== undefined || this.fromRoadmap !== undefined;
  }

  get anyPending(): boolean {
    return this.pending.size > 0;
  }

  /** The budget of all attempts together (USD), when one is set. */
  whole(): number | undefined {
    const { budget, attempts } = this.input;
    if (budget?.usd !== undefined) return budget.usd;
    return attempts?.attemptBudgetUsd !== undefined ? attempts.attemptBudgetUsd * attempts.count : undefined;
  }

  /** In a roadmap with a run budget: reserves the whole before the first attempt starts; false when the roadmap denies it. */
  async reserveUpFront(): Promise<boolean> {
    const whole = this.whole();
    if (this.fromRoadmap === undefined || whole === undefined) return true;
    return this.askRoadmap(whole);
  }

  /** An attempt ended having spent `spentUsd`: its grant shrinks to that, and its request lapses. */
  settle(taskId: string, spentUsd: number): void {
    this.granted.set(taskId, spentUsd);
    this.pending.delete(taskId);
  }

  /** Grants what fits, in attempt order; asks the roadmap for more when it can; otherwise denies the rest and cuts the budget. */
  async serve(): Promise<void> {
    while (this.pending.size) {
      let granted = false;
      for (const [taskId, usd] of [...this.pending].sort(([a], [b]) => a.localeCompare(b))) {
        if (usd - (this.granted.get(taskId) ?? 0) > this.left()) continue;
        this.granted.set(taskId, usd);
        this.pending.delete(taskId);
        granted = true;
        await this.tell(taskId, { usd });
      }
      if (granted || !this.pending.size) continue;
      const wanted = this.held() + Math.min(...[...this.pending].map(([taskId, usd]) => usd - (this.granted.get(taskId) ?? 0)));
      const whole = this.whole();
      if (this.fromRoadmap !== undefined && !this.roadmapDenied && (whole === undefined || wanted <= whole) && (await this.askRoadmap(wanted))) continue;
      this.cut = true;
      for (const taskId of this.pending.keys()) await this.tell(taskId, { denied: true });
      this.pending.clear();
    }
  }

  private held(): number {
    let held = 0;
    for (const usd of this.granted.values()) held += usd;
    return held;
  }

  private left(): number {
    const limits = [this.whole(), this.fromRoadmap].filter((v): v is number => v !== undefined);
    return limits.length ? Math.min(...limits) - this.held() : Infinity;
  }

  private async askRoadmap(usd: number): Promise<boolean> {
    const parent = workflowInfo().parent!;
    await getExternalWorkflowHandle(parent.workflowId, parent.runId).signal(budgetRequestSignal, { taskId: this.input.taskId, usd, spent: this.carry() });
    await condition(() => this.roadmapDenied || (this.fromRoadmap ?? 0) >= usd);
    return !this.roadmapDenied;
  }

  private async tell(taskId: string, grant: { usd: number } | { denied: true }): Promise<void> {
    const id = this.idOf(taskId);
    if (id) await sendGrant(id, grant);
  }
}
