import { getExternalWorkflowHandle, workflowInfo } from '@temporalio/workflow';
import { taskUpdateSignal } from '../run/definitions';
import type { TaskProgress } from './progress';

/**
 * Tells the parent workflow (a roadmap), when there is one, where this task is: its state,
 * what it waits for, its phase and what it spent. Sent on changes, not on every step, so the
 * parent's history stays small.
 */
export async function notifyParent(taskId: string, progress: TaskProgress, phase?: string): Promise<void> {
  const parent = workflowInfo().parent;
  if (!parent) return;
  const s = progress.status();
  try {
    await getExternalWorkflowHandle(parent.workflowId, parent.runId).signal(taskUpdateSignal, {
      taskId,
      state: s.state,
      waitingFor: s.waitingFor,
      phase: phase ?? s.current.phase,
      tokens: s.tokens,
      costUsd: s.costUsd,
    });
  } catch {
    // The parent has closed (or continued as new): an update it cannot take changes nothing for the task.
  }
}
