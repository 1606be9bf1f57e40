import { CancelledFailure, Context } from '@temporalio/activity';
import { FAILURE, nonRetryable } from '../../core/run/failure-types';
import { workerPlacedSignal } from '../../core/run/definitions';
import type { ActivityDeps } from '../deps';

/** How often a held slot is renewed: the lease's heartbeat timeout (workflows/run/policies.ts leasePolicy) is several of these. */
const RENEW_MS = 2_000;

/**
 * A task's slot on this worker (docs/fleet.md#where-a-task-runs), run on the fleet's queue, where
 * each worker takes at most `dex worker --tasks K` at once: that is its capacity. It tells the task
 * this worker's own queue (`workerPlaced`), then holds the slot, renewing it by heartbeats, until
 * the task releases it (a cancel), or the worker stops (it gives the slot back, and the task
 * moves at once), or it dies, when the missing heartbeats tell the task to move. Nothing else
 * watches workers.
 */
export const createTaskSlotActivities = (deps: ActivityDeps) => ({
  async holdTaskSlot({ lease }: { lease: string }): Promise<'released'> {
    const ctx = Context.current();
    const fleet = deps.fleet;
    if (!fleet) throw nonRetryable(FAILURE.NotInFleet, 'this worker is not in a fleet: it takes no task slots');
    const workflowId = ctx.info.workflowExecution?.workflowId;
    if (!workflowId) throw nonRetryable(FAILURE.NotInFleet, 'a task slot is held for a workflow: this activity ran outside one');
    await ctx.client.workflow.getHandle(workflowId).signal(workerPlacedSignal, { lease, ...fleet.worker });
    fleet.held.add(workflowId);
    try {
      // A worker that stops gives its slots back: their tasks move now rather than when the heartbeats are missed.
      while (!fleet.leaving) {
        ctx.heartbeat();
        await ctx.sleep(RENEW_MS);
      }
      return 'released';
    } catch (err) {
      if (err instanceof CancelledFailure) return 'released';
      throw err;
    } finally {
      fleet.held.delete(workflowId);
    }
  },
});
