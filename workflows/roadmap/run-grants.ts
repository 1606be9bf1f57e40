import { setHandler } from '@temporalio/workflow';
import { formatUsd } from '../../core/text/spending';
import { budgetRequestSignal, type TaskSpending } from '../../core/run/definitions';
import { sendGrant } from '../run/budget-grant';
import type { RunControl } from '../run/run-control';
import type { RunLedger } from '../run/run-ledger';
import { inIdOrder } from './id-order';

/**
 * The run budget of a roadmap, handed to its tasks by reservation
 * (docs/roadmaps.md#budgets-and-runaway-protection): a task asks for a grant before a model
 * call whose worst case its grant does not cover, and the roadmap grants it only while the
 * grants together stay within the run budget. A task that ends gives back what it did not
 * spend. When a request does not fit, the roadmap waits at its `budget` gate
 * (`budget_exceeded`): `approve` with `budgetUsd` raises the budget (without a figure it lifts
 * it), `reject` denies the waiting tasks.
 */
export class RunGrants {
  /** Each task's grant in all (USD); an ended task's is what it spent. */
  private readonly granted = new Map<string, number>();
  /** Requests not granted yet: the grant in all each task asked for. */
  private readonly pending = new Map<string, number>();

  /**
   * @param spentBefore what earlier runs of this roadmap (before continue-as-new) spent.
   * @param idOf the workflow id of a task's run.
   * @param heard takes what a task that asks says it has spent: the run waits for budget with it shown.
   */
  constructor(
    private readonly ledger: RunLedger,
    private readonly control: RunControl,
    private readonly idOf: (taskId: string) => string,
    private readonly spentBefore: number,
    heard: (taskId: string, spent: TaskSpending) => void,
  ) {
    setHandler(budgetRequestSignal, ({ taskId, usd, spent }) => {
      this.pending.set(taskId, Math.max(usd, this.pending.get(taskId) ?? 0));
      if (spent) heard(taskId, spent);
    });
  }

  /** A task asked for more than it holds. */
  get anyPending(): boolean {
    return this.pending.size > 0;
  }

  /** A task ended having spent `spentUsd`: its grant shrinks to that, and any request of it lapses. */
  settle(taskId: string, spentUsd: number): void {
    this.granted.set(taskId, spentUsd);
    this.pending.delete(taskId);
  }

  /**
   * Holds all that is left of the run budget under `key` (until {@link settle}) for a run that
   * cannot ask for grants as it goes; undefined without a run budget in USD.
   */
  holdRest(key: string): number | undefined {
    const left = this.left();
    if (left === Infinity) return undefined;
    this.granted.set(key, Math.max(0, left));
    return Math.max(0, left);
  }

  /** Grants what fits, in task id order (T2 before T10); waits at the `budget` gate for the rest. `rejected` when a person said no. */
  async serve(): Promise<'ok' | 'rejected'> {
    for (;;) {
      // Requests may arrive while a grant is being sent: go round until a pass grants nothing.
      while (await this.grantWhatFits());
      if (this.pending.size === 0) return 'ok';
      const decision = await this.control.waitAt('budget', {}, { reason: this.shortfall() });
      if (decision.action === 'reject') {
        for (const taskId of this.pending.keys()) await this.tell(taskId, { denied: true });
        this.pending.clear();
        return 'rejected';
      }
      this.ledger.budget = decision.budgetUsd !== undefined ? { ...this.ledger.budget, usd: decision.budgetUsd } : undefined;
    }
  }

  /** Grants each pending request that fits, in task id order; true when it granted any. */
  private async grantWhatFits(): Promise<boolean> {
    let granted = false;
    for (const [taskId, usd] of inIdOrder([...this.pending], ([id]) => id)) {
      if (usd - (this.granted.get(taskId) ?? 0) > this.left()) continue;
      this.granted.set(taskId, usd);
      this.pending.delete(taskId);
      granted = true;
      await this.tell(taskId, { usd });
    }
    return granted;
  }

  /** What the grants leave of the run budget (unlimited without one). */
  private left(): number {
    const budget = this.ledger.budget?.usd;
    if (budget === undefined) return Infinity;
    let held = this.spentBefore;
    for (const usd of this.granted.values()) held += usd;
    return budget - held;
  }

  private shortfall(): string {
    const asks = [...this.pending].map(([taskId, usd]) => `${taskId} needs up to ${formatUsd(usd - (this.granted.get(taskId) ?? 0))} more`);
    return `${asks.join(', ')}; ${formatUsd(Math.max(0, this.left()))} of the ${formatUsd(this.ledger.budget?.usd ?? 0)} run budget is not yet reserved`;
  }

  private tell(taskId: string, grant: { usd: number } | { denied: true }): Promise<void> {
    return sendGrant(this.idOf(taskId), grant);
  }
}
