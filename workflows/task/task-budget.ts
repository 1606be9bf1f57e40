import { condition, getExternalWorkflowHandle, setHandler, workflowInfo } from '@temporalio/workflow';
import { describeReserve, fits, leftOf, tighter, type Allowance, type Reserve } from '../../core/run/budget-reservation';
import type { TaskInput } from '../../core/task/task-types';
import { budgetGrantSignal, budgetRequestSignal } from '../../core/run/definitions';
import type { RunControl } from '../run/run-control';
import type { RunLedger } from '../run/run-ledger';
import type { ParentLink } from './parent-link';

/**
 * A task's budgets by reservation (docs/roadmaps.md#budgets-and-runaway-protection): its own
 * budget, and, in a roadmap with a run budget, the grant the roadmap gave it from that budget.
 * A model call is made only when its worst case fits in both; otherwise the task waits at its
 * `budget` gate (its own budget) or asks the roadmap for more and waits for the grant — so
 * parallel tasks together can never spend past the run budget.
 */
export class TaskBudget {
  /** The roadmap's grant in all (USD); undefined when no run budget applies. */
  private grantUsd: number | undefined;
  private denied = false;

  constructor(
    private readonly input: TaskInput,
    private readonly ledger: RunLedger,
    private readonly control: RunControl,
    private readonly parentLink: ParentLink,
  ) {
    if (!input.runBudgeted || !workflowInfo().parent) return;
    this.grantUsd = 0;
    setHandler(budgetGrantSignal, (grant) => {
      if ('denied' in grant) this.denied = true;
      else this.grantUsd = Math.max(this.grantUsd ?? 0, grant.usd);
    });
  }

  /** What the next model call may spend: the tighter of the task's budget and its grant. */
  allowance(): Allowance | undefined {
    const spent = this.ledger.spent();
    const granted = this.grantUsd === undefined ? undefined : { usd: this.grantUsd - spent.costUsd };
    return tighter(leftOf(this.ledger.budget, spent), granted);
  }

  /** Makes room for a call that may cost `worst`; `rejected` when a person would not raise a budget. */
  async reserve(worst: Reserve): Promise<'ok' | 'rejected'> {
    const { taskId } = this.input;
    while (!fits(worst, leftOf(this.ledger.budget, this.ledger.spent()))) {
      const reason = `the next model call may cost up to ${describeReserve(worst)}, more than is left of the task's budget`;
      // An attempt's cap is not raised by a person: the attempt ends (docs/attempts.md#attempts-wait-for-no-one).
      if (this.input.attempt) return 'rejected';
      const decision = await this.control.waitAt('budget', {}, { taskId, reason });
      if (decision.action === 'reject') return 'rejected';
      this.ledger.budget = decision.budgetUsd !== undefined ? { ...this.ledger.budget, usd: decision.budgetUsd } : undefined;
    }
    if (this.grantUsd === undefined) return 'ok';
    const wanted = this.ledger.spent().costUsd + worst.usd;
    if (this.grantUsd >= wanted) return 'ok';
    const parent = workflowInfo().parent!;
    this.ledger.step(`waiting for ${describeReserve(worst)} of the run budget`);
    await getExternalWorkflowHandle(parent.workflowId, parent.runId).signal(budgetRequestSignal, { taskId, usd: wanted, spent: this.parentLink.carry() });
    await condition(() => this.denied || (this.grantUsd ?? 0) >= wanted);
    return this.denied ? 'rejected' : 'ok';
  }
}
