import type { TaskInput } from '../../core/types';
import type { RunControl } from './run-control';
import type { TaskProgress } from '../task/progress';

/** The reason a run is over its budget, or undefined when it is within it. */
export function overBudget(progress: TaskProgress): string | undefined {
  const budget = progress.budget;
  if (!budget) return undefined;
  const t = progress.tokens;
  const tokens = t.input + t.output + t.cacheRead + t.cacheWrite;
  if (budget.usd !== undefined && progress.costUsd >= budget.usd) {
    return `spent $${progress.costUsd.toFixed(4)} of a $${budget.usd} budget`;
  }
  if (budget.tokens !== undefined && tokens >= budget.tokens) return `used ${tokens} of a ${budget.tokens}-token budget`;
  return undefined;
}

/**
 * Checked before every model call: over budget, the run waits at the `budget` gate in state
 * `budget_exceeded` until `approve` raises the budget (`budgetUsd`) or `reject` ends it.
 */
export async function guardBudget(input: TaskInput, control: RunControl, progress: TaskProgress): Promise<'ok' | 'rejected'> {
  for (let reason = overBudget(progress); reason; reason = overBudget(progress)) {
    const decision = await control.waitAt('budget', {}, { taskId: input.taskId, reason });
    if (decision.action === 'reject') return 'rejected';
    if (decision.budgetUsd !== undefined) progress.budget = { ...progress.budget, usd: decision.budgetUsd };
    else if (overBudget(progress)) progress.budget = undefined; // approved without a figure: no limit any more
  }
  return 'ok';
}
