import { statusQuery } from '../../core/run/definitions';
import { fleetQueueOf } from '../../core/fleet/placement-types';
import type { RunStatus } from '../../core/run/run-types';
import { parseOptionsOnly, type Output } from '../cli-context';
import { pollerAlive } from '../run/run-handles';
import { connectSaying } from '../run/slow-wait';
import { readSettings } from '../settings';
import { temporal } from '@temporalio/proto';

const { TaskQueueType } = temporal.api.enums.v1;

/** One worker of the fleet as `dex workers` shows it. */
interface FleetMember {
  name: string;
  /** When it last asked the fleet's queue for a task slot (ISO). */
  lastSeen?: string;
  /** The running tasks it holds, with where each is. */
  tasks: { workflowId: string; phase?: string; waitingFor?: string }[];
}

/**
 * `dex workers` (docs/fleet.md#seeing-the-fleet): the workers that poll the fleet's queue for task
 * slots, as the server knows them (a worker gone for a minute is not listed), and the running
 * tasks each holds, as each task's status says.
 */
export async function workersCommand(argv: string[], out: Output): Promise<number> {
  parseOptionsOnly(argv, 'workers');
  const settings = readSettings();
  const conns = await connectSaying(settings, out.info);
  try {
    const queue = fleetQueueOf(settings.taskQueue);
    const described = await conns.client.workflowService.describeTaskQueue({
      namespace: settings.namespace,
      taskQueue: { name: queue },
      taskQueueType: TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
    });
    const members = new Map<string, FleetMember>();
    for (const poller of described.pollers ?? []) {
      const identity = poller.identity ?? '';
      if (!pollerAlive(identity)) continue;
      const name = identity.split(' ')[0];
      const seconds = Number(poller.lastAccessTime?.seconds ?? 0);
      members.set(name, { name, ...(seconds ? { lastSeen: new Date(seconds * 1000).toISOString() } : {}), tasks: [] });
    }
    const running = conns.client.workflow.list({ query: `WorkflowType = 'taskWorkflow' AND ExecutionStatus = 'Running' AND TaskQueue = '${settings.taskQueue}'` });
    for await (const run of running) {
      const status = await conns.client.workflow.getHandle(run.workflowId).query<RunStatus>(statusQuery.name).catch(() => undefined);
      if (!status?.worker) continue;
      const member = members.get(status.worker) ?? { name: status.worker, tasks: [] };
      member.tasks.push({ workflowId: run.workflowId, ...(status.current.phase ? { phase: status.current.phase } : {}), ...(status.waitingFor ? { waitingFor: status.waitingFor.gate } : {}) });
      members.set(status.worker, member);
    }
    const list = [...members.values()].sort((a, b) => a.name.localeCompare(b.name));
    const line = (m: FleetMember) =>
      [`${m.name}${m.lastSeen ? `  last seen ${m.lastSeen}` : '  (not polling: gone, or draining)'}`, ...m.tasks.map((t) => `  ${t.workflowId}${t.phase ? ` · ${t.phase}` : ''}${t.waitingFor ? ` · waiting at ${t.waitingFor}` : ''}`)].join('\n');
    out.result(list.length ? list.map(line).join('\n') : `no worker polls ${queue}: start one with \`dex worker\``, { queue, workers: list });
    return 0;
  } finally {
    await conns.close();
  }
}
