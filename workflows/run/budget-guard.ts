import type { RunControl } from './run-control';
import type { RunLedger } from './run-ledger';

/**
 * Checked before a run spends more (a task before every model call, a roadmap before it
 * starts a task): over budget, the run waits at the `budget` gate in state `budget_exceeded`
 * until `approve` raises the budget (`budgetUsd`; without a figure the limit is lifted) or
 * `reject` ends it.
 */
export async function guardBudget(ledger: RunLedger, control: RunControl, detail: { taskId?: string } = {}): Promise<'ok' | 'rejected'> {
  for (let reason = ledger.overBudget(); reason; reason = ledger.overBudget()) {
    const decision = await control.waitAt('budget', {}, { ...detail, reason });
    if (decision.action === 'reject') return 'rejected';
    ledger.budget = decision.budgetUsd !== undefined ? { ...ledger.budget, usd: decision.budgetUsd } : undefined;
  }
  return 'ok';
}
