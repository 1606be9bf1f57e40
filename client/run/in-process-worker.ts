import type { Connections } from '../server/connection';
import type { Settings } from '../settings';
import { createDexWorker, fleetMembership, hostDeps, type DexWorker } from '../../worker/start-worker';
import { fleetQueueOf } from '../../core/fleet/placement-types';
import { pollerCount, queuesServed } from './run-handles';
import { saysWhileWaiting } from './slow-wait';

/** A worker this command started for itself, stopped when the command ends. */
interface InProcessWorker {
  /** It runs workflow tasks too: a run started through its connection may start eagerly. */
  servesWorkflows: boolean;
  stop(): Promise<void>;
}

/**
 * Starts a worker inside this process for what no worker polls (docs/architecture.md#who-serves-a-run):
 * the run's activities, on its owner's queue (client/run-queues.ts), unless a `dex worker` with the
 * same key serves them; its workflow tasks too when no worker polls the shared queue (on the
 * embedded server a workflow host does). Returns undefined when every queue is served.
 */
export async function ensureWorker(conns: Connections, settings: Settings, log: (line: string) => void, { fleet = false } = {}): Promise<InProcessWorker | undefined> {
  const { workflows, activities } = await queuesServed(conns.client, settings);
  // A task on a forge repository waits for a slot on a fleet worker (docs/fleet.md): with none, this process is the fleet's one.
  const slots = fleet && (await pollerCount(conns.client, settings.namespace, fleetQueueOf(settings.taskQueue), 'activity')) === 0;
  if (workflows && activities && !slots) return undefined;
  const what = [workflows ? '' : `workflows on ${settings.taskQueue}, `, `activities on ${settings.hostQueue}`, slots ? `, one fleet task slot on ${fleetQueueOf(settings.taskQueue)}` : ''].join('');
  log(`serving the run with a worker in this process (${what})`);
  const starting = startInProcessWorker(conns, settings, { workflows: !workflows, fleet: slots });
  return saysWhileWaiting(starting, workflows ? 'starting a worker in this process' : 'starting a worker in this process (bundling the workflows)', log);
}

/** Starts a worker inside this process: the run's activities, and its workflow tasks unless `workflows` is false. */
export async function startInProcessWorker(conns: Connections, settings: Settings, { workflows = true, fleet = false }: { workflows?: boolean; fleet?: boolean } = {}): Promise<InProcessWorker> {
  const base = await hostDeps(settings.dexHome);
  const deps = fleet ? { ...base, fleet: fleetMembership(settings.taskQueue, settings.dexHome) } : base;
  let worker: DexWorker;
  try {
    worker = await createDexWorker(
      {
        connection: await conns.nativeConnection(),
        namespace: settings.namespace,
        taskQueue: settings.taskQueue,
        servesWorkflows: workflows,
        hostQueue: settings.hostQueue,
        dataConverter: conns.dataConverter,
        ...(fleet ? { taskSlots: 1 } : {}),
      },
      deps,
    );
  } catch (err) {
    // A PostgreSQL store's open connections would keep the process alive after the command fails.
    await deps.store.close();
    throw err;
  }
  const running = worker.run();
  return {
    servesWorkflows: workflows,
    stop: async () => {
      worker.shutdown();
      await running;
      await deps.store.close();
    },
  };
}
