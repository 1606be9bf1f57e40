import type { Connections } from '../server/connection';
import type { Settings } from '../settings';
import { createDexWorker, hostDeps, type DexWorker } from '../../worker/start-worker';
import { hasPollers } from './run-handles';
import { saysWhileWaiting } from './slow-wait';

/** A worker this command started for itself, stopped when the command ends. */
export interface InProcessWorker {
  stop(): Promise<void>;
}

/**
 * Starts a worker inside this process when no worker polls the run's queues
 * (docs/interfaces.md#the-dex-command); returns undefined when one already does. A command's
 * runs have queues of their own (client/settings.ts commandSettings), so it always serves them.
 */
export async function ensureWorker(conns: Connections, settings: Settings, log: (line: string) => void): Promise<InProcessWorker | undefined> {
  const [workflows, activities] = await Promise.all([
    hasPollers(conns.client, settings.namespace, settings.taskQueue, 'workflow'),
    hasPollers(conns.client, settings.namespace, settings.hostQueue, 'activity'),
  ]);
  if (workflows && activities) return undefined;
  log(`serving the run with a worker in this process (queue ${settings.taskQueue})`);
  return saysWhileWaiting(startInProcessWorker(conns, settings), 'starting a worker in this process (bundling the workflows)', log);
}

/** Starts a worker for both queues inside this process. */
export async function startInProcessWorker(conns: Connections, settings: Settings): Promise<InProcessWorker> {
  const deps = await hostDeps(settings.dexHome);
  let worker: DexWorker;
  try {
    worker = await createDexWorker(
      {
        connection: await conns.nativeConnection(),
        namespace: settings.namespace,
        taskQueue: settings.taskQueue,
        hostQueue: settings.hostQueue,
        dataConverter: conns.dataConverter,
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
    stop: async () => {
      worker.shutdown();
      await running;
      await deps.store.close();
    },
  };
}
