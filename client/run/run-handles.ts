import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy, type Client, type WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { hostname } from 'node:os';
import { processExists } from '../../host/process-owner';
import { numberedWorkflowId } from '../../core/run/ids';
import { InvalidInput } from '../../core/run/invalid-input';
import type { WorkflowName } from '../plan-kinds';
import { SHORT_WORKFLOW_TASK_TIMEOUT } from '../../core/run/definitions';

/** A task's workflow tasks time out early, so a dead worker's run moves on within seconds (workflows/run/policies.ts). */
const timeoutsOf = (workflowType: WorkflowName) => (workflowType === 'taskWorkflow' ? { workflowTaskTimeout: SHORT_WORKFLOW_TASK_TIMEOUT } : {});

const { TaskQueueType } = temporal.api.enums.v1;

/** What a run shows of itself in the Web UI from its start: a memo, a one-line summary and details. */
export interface StartMarks {
  memo?: Record<string, unknown>;
  staticSummary?: string;
  staticDetails?: string;
}

/**
 * A start's marks, and whether a worker in this process should take the run's first workflow task
 * in the start call's reply (eager start; only through `Connections.workerClient`, docs/performance.md).
 */
type StartOptions = StartMarks & { requestEagerStart?: boolean };

/**
 * Starts a workflow under the first free id `<prefix>-<n>` (docs/interfaces.md#plans-workflows-and-ids: readable, stable
 * ids). Rejecting duplicates makes the server, not a local counter, decide which n is free; `inUse`
 * passes over the ids this host still keeps something of after the server forgot their runs
 * (client/run/run-ids-in-use.ts).
 */
export async function startWithNextId(
  client: Client,
  prefix: string,
  workflowType: WorkflowName,
  args: readonly unknown[],
  taskQueue: string,
  options: StartOptions = {},
  inUse: (id: string) => Promise<boolean> = async () => false,
): Promise<WorkflowHandle> {
  for (let n = 1; n < 100_000; n++) {
    const workflowId = numberedWorkflowId(prefix, n);
    if (await inUse(workflowId)) continue;
    try {
      return await client.workflow.start(workflowType, {
        workflowId,
        taskQueue,
        args,
        ...options,
        ...timeoutsOf(workflowType),
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
  }
  throw new Error(`no free workflow id under ${prefix}`);
}

/**
 * Starts a workflow under exactly `workflowId`; a run of it that is still going is an input
 * error (exit 2) naming it, while an ended one may be run again.
 */
export async function startWithId(
  client: Client,
  workflowId: string,
  workflowType: WorkflowName,
  args: readonly unknown[],
  taskQueue: string,
  options: StartOptions = {},
): Promise<WorkflowHandle> {
  try {
    return await client.workflow.start(workflowType, {
      workflowId,
      taskQueue,
      args,
      ...options,
      ...timeoutsOf(workflowType),
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
    });
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) throw new InvalidInput(`${workflowId} is already running: dex watch ${workflowId}`);
    throw err;
  }
}

/**
 * Starts `workflowType` under `workflowId` unless a run of that id ever started (running or ended):
 * one run per id, whatever asks again (a forge's redelivery). Undefined when one had.
 */
export async function startOnce(client: Client, workflowId: string, workflowType: WorkflowName, args: readonly unknown[], taskQueue: string, options: StartOptions = {}): Promise<WorkflowHandle | undefined> {
  try {
    return await client.workflow.start(workflowType, { workflowId, taskQueue, args, ...options, ...timeoutsOf(workflowType), workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE });
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return undefined;
    throw err;
  }
}

/** The workers that poll `queue` for tasks of `type` (seen by the server within the last minutes), by identity. */
export async function pollerIdentities(client: Client, namespace: string, queue: string, type: 'workflow' | 'activity'): Promise<string[]> {
  const response = await client.workflowService.describeTaskQueue({
    namespace,
    taskQueue: { name: queue },
    taskQueueType: type === 'workflow' ? TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW : TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
  });
  return (response.pollers ?? []).map((p) => p.identity ?? '');
}

/**
 * False for a poller of this machine whose process is gone. The server lists a dead worker's
 * pollers for minutes; a worker's identity ends in `<pid>@<hostname>` (the SDK's default, and
 * dex's workflow hosts'), so one of this host can be checked.
 */
export function pollerAlive(identity: string): boolean {
  const match = /(?:^|\s)(\d+)@(\S+)$/.exec(identity);
  return !match || match[2] !== hostname() || processExists(Number(match[1]));
}

/** How many live workers poll `queue` for tasks of `type` (seen by the server within the last minute). */
export async function pollerCount(client: Client, namespace: string, queue: string, type: 'workflow' | 'activity'): Promise<number> {
  return (await pollerIdentities(client, namespace, queue, type)).filter(pollerAlive).length;
}

/** Whether some live worker polls the run's workflow queue, and its activity queue (`hostQueue`). */
export async function queuesServed(client: Client, queues: { namespace: string; taskQueue: string; hostQueue: string }): Promise<{ workflows: boolean; activities: boolean }> {
  const [workflows, activities] = await Promise.all([
    hasPollers(client, queues.namespace, queues.taskQueue, 'workflow'),
    hasPollers(client, queues.namespace, queues.hostQueue, 'activity'),
  ]);
  return { workflows, activities };
}

/** True when some worker polls `queue` for tasks of `type`. */
async function hasPollers(client: Client, namespace: string, queue: string, type: 'workflow' | 'activity'): Promise<boolean> {
  return (await pollerCount(client, namespace, queue, type)) > 0;
}
