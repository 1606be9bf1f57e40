import { getExternalWorkflowHandle } from '@temporalio/workflow';
import { budgetGrantSignal } from '../../core/run/definitions';

/**
 * Answers a child run's budget request (docs/roadmaps.md#budgets-and-runaway-protection): its grant
 * in all, or `denied`. A roadmap answers its tasks so, a best-of-N task its attempts (docs/attempts.md).
 */
export async function sendGrant(workflowId: string, grant: { usd: number } | { denied: true }): Promise<void> {
  try {
    await getExternalWorkflowHandle(workflowId).signal(budgetGrantSignal, grant);
  } catch {
    // The child ended meanwhile: nothing waits for the answer.
  }
}
