import type { WorkflowHandle } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';

const { PendingWorkflowTaskState, PendingActivityState } = temporal.api.enums.v1;

/** Work of a run that no worker has picked up: a workflow task, or an activity's first attempt. */
interface UnclaimedWork {
  kind: 'workflow' | 'activity';
  /** How long it has waited. */
  waitingMs: number;
}

/**
 * The run's work that has waited longest for a worker, if any: a scheduled workflow task, or a
 * scheduled first activity attempt. The server lists a dead worker's pollers for minutes, so
 * "some worker polls" is not proof that one is alive; work left waiting is.
 */
export async function unclaimedWork(handle: WorkflowHandle, now = Date.now()): Promise<UnclaimedWork | undefined> {
  const { raw, status } = await handle.describe();
  if (status.name !== 'RUNNING') return undefined;
  const waitingSince = (ts: Parameters<typeof tsToMs>[0]) => (ts ? now - tsToMs(ts) : 0);
  const waits: UnclaimedWork[] = [];
  const wt = raw.pendingWorkflowTask;
  if (wt && wt.state === PendingWorkflowTaskState.PENDING_WORKFLOW_TASK_STATE_SCHEDULED) {
    waits.push({ kind: 'workflow', waitingMs: waitingSince(wt.scheduledTime) });
  }
  for (const a of raw.pendingActivities ?? []) {
    if (a.state === PendingActivityState.PENDING_ACTIVITY_STATE_SCHEDULED && !a.lastStartedTime) {
      waits.push({ kind: 'activity', waitingMs: waitingSince(a.scheduledTime) });
    }
  }
  return waits.sort((a, b) => b.waitingMs - a.waitingMs)[0];
}

/** What a person reads while `work` waits: the queue it waits on and for how long. */
export function workerWaitNotice(work: UnclaimedWork, queues: { taskQueue: string; hostQueue: string }): string {
  const queue = work.kind === 'workflow' ? queues.taskQueue : queues.hostQueue;
  return `waiting for a worker on queue ${queue} (${Math.round(work.waitingMs / 1000)}s)…`;
}
