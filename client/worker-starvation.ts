import type { WorkflowHandle } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';

const { PendingWorkflowTaskState, PendingActivityState } = temporal.api.enums.v1;

/**
 * True when the run has a workflow task or a first activity attempt that no worker has
 * picked up for `graceMs`. The server lists a dead worker's pollers for minutes, so "some
 * worker polls" is not proof that one is alive; work left waiting is.
 */
export async function isStarved(handle: WorkflowHandle, graceMs: number, now = Date.now()): Promise<boolean> {
  const { raw, status } = await handle.describe();
  if (status.name !== 'RUNNING') return false;
  const waitingSince = (ts: Parameters<typeof tsToMs>[0]) => (ts ? now - tsToMs(ts) : 0);
  const wt = raw.pendingWorkflowTask;
  if (wt && wt.state === PendingWorkflowTaskState.PENDING_WORKFLOW_TASK_STATE_SCHEDULED && waitingSince(wt.scheduledTime) > graceMs) {
    return true;
  }
  return (raw.pendingActivities ?? []).some(
    (a) =>
      a.state === PendingActivityState.PENDING_ACTIVITY_STATE_SCHEDULED &&
      !a.lastStartedTime &&
      waitingSince(a.scheduledTime) > graceMs,
  );
}
