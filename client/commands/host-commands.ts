import { once } from 'node:events';
import { parseCommandArgs, parseOptionsOnly, UsageError, type Output } from '../cli-context';
import { COMMAND_HELP, usageOf } from '../command-help';
import { recordServer, registryDir } from '../server/host-registry';
import { stopBackground } from '../server/server-stop';
import { connectSaying } from '../run/slow-wait';
import { installRuntimeLogging } from '../server/runtime-logging';
import { runDevServerForeground } from '../server/dev-server';
import { readSettings, EMBEDDED_ADDRESS, EMBEDDED_UI, type Settings } from '../settings';
import { ownerQueue } from '../run-queues';
import type { Connections } from '../server/connection';
import { workflowHostIdentity, type WorkflowHostRole } from '../server/workflow-host';
import { ensureTemporalCli, ensureTestServer, testServerDir } from '../toolchain/toolchain';
import { ensureTestServerArchive } from '../toolchain/test-server-jvm';
import { bwrapProgram, ensureSandbox } from '../../host/sandbox/sandbox-availability';
import { createDexWorker, createWorkflowWorker, DEFAULT_TASK_SLOTS, fleetMembership, hostDeps, workerGroup, type DexWorker } from '../../worker/start-worker';
import { flushTracing } from '../../tracing/tracing';
import { sharedStoreQueue } from '../../store/dex-store';
import { fleetQueueOf } from '../../core/fleet/placement-types';
import { drainOnSignal, drainWorker, recordWorkerPid } from '../fleet/worker-drain';

/** `dex setup`: installs (or finds in the cache) the Temporal CLI and the Java test server, and says whether a sandbox works here. */
export async function setupCommand(argv: string[], out: Output): Promise<number> {
  const values = parseOptionsOnly(argv, 'setup');
  const log = (line: string) => out.info(line);
  const temporalCli = ensureTemporalCli(log);
  const testServer = ensureTestServer(log);
  await ensureTestServerArchive(testServerDir(), log);
  const available = ensureSandbox(log);
  const sandbox = available.ok ? `bubblewrap (${bwrapProgram()})` : available.why;
  if (!available.ok) out.info(`WARNING: ${sandbox}`);
  if (!values.quiet || out.json) {
    out.result(`Temporal CLI: ${temporalCli}\nTest server: ${testServer}\nSandbox: ${sandbox}`, { temporalCli, testServer, sandbox: { available: available.ok, detail: sandbox } });
  }
  return 0;
}

/** `dex server`: the embedded dev server with a persistent SQLite file and the Web UI, in the foreground, and a workflow host for it; `dex server stop` stops what runs in the background. */
export async function serverCommand(argv: string[], out: Output): Promise<number> {
  const { positionals } = parseCommandArgs(argv, COMMAND_HELP.server.options);
  if (positionals.length > 1 || (positionals.length === 1 && positionals[0] !== 'stop')) {
    throw new UsageError(`unexpected argument "${positionals.at(-1)}": ${usageOf('server')}`);
  }
  const settings = readSettings();
  if (positionals[0] === 'stop') return serverStop(settings, out);
  recordServer(registryDir(EMBEDDED_ADDRESS), process.pid);
  out.info(`Temporal dev server at ${EMBEDDED_ADDRESS}, Web UI at ${EMBEDDED_UI}, data in ${settings.dexHome}/temporal.db`);
  const child = runDevServerForeground(settings.dexHome);
  let host: DexWorker | undefined;
  let stopping = false;
  for (const sig of ['SIGINT', 'SIGTERM'] as const)
    process.on(sig, () => {
      stopping = true;
      host?.shutdown();
      child.kill(sig);
    });
  const exited = once(child, 'exit') as Promise<[number | null]>;
  // The dev server's own runs stay legible while it runs: queries, Current Details (docs/architecture.md#who-serves-a-run).
  const serving = (async () => {
    const conns = await connectSaying({ ...settings, address: undefined }, out.info, { workflowHost: false, startEmbedded: false });
    if (stopping) return conns.close();
    host = await workflowHostWorker(conns, settings, 'server');
    out.info(`serving the workflows of queue ${settings.taskQueue} (no model key, no activities)`);
    await host.run();
    await conns.close();
  })();
  const [code] = await exited;
  host?.shutdown();
  await serving.catch((err: unknown) => out.info(`workflow host: ${err instanceof Error ? err.message : String(err)}`));
  return code ?? 0;
}

/** `dex server stop`: every background workflow host of the embedded server, then the server (client/server/server-stop.ts). */
async function serverStop(settings: Settings, out: Output): Promise<number> {
  const { hosts, servers } = await stopBackground({ ...settings, address: undefined });
  const parts = [
    hosts.length ? `${hosts.length} workflow host${hosts.length === 1 ? '' : 's'} (${hosts.join(', ')})` : undefined,
    servers.length ? `the embedded dev server (${servers.join(', ')})` : undefined,
  ].filter((p): p is string => !!p);
  out.result(parts.length ? `stopped ${parts.join(' and ')}` : 'nothing of dex runs in the background', { hosts, servers });
  return 0;
}

/** `dex worker`: serves every workflow and this host's activities until SIGINT or SIGTERM; with `--workflows-only`, workflows alone, without credentials. */
export async function workerCommand(argv: string[], out: Output): Promise<number> {
  const values = parseOptionsOnly(argv, 'worker');
  // A long-running worker is an operator's process: its warnings belong in its log.
  installRuntimeLogging('WARN');
  const settings = readSettings();
  if (values.drain) {
    await drainWorker(settings.dexHome, out.info);
    return 0;
  }
  const taskSlots = values.tasks === undefined ? undefined : taskSlotsOf(values.tasks);
  const conns = await connectSaying(settings, out.info, { workflowHost: false });
  if (values['workflows-only']) return serveWorkflowsOnly(conns, settings, out);
  const deps = { ...(await hostDeps(settings.dexHome)), fleet: fleetMembership(settings.taskQueue, settings.dexHome) };
  const storeQueue = sharedStoreQueue(settings.taskQueue, deps.store);
  const owner = ownerQueue(settings);
  try {
    const worker = await createDexWorker(
      {
        connection: await conns.nativeConnection(),
        namespace: settings.namespace,
        taskQueue: settings.taskQueue,
        hostQueue: settings.hostQueue,
        ownerQueue: owner,
        storeQueue,
        dataConverter: conns.dataConverter,
        ...(taskSlots ? { taskSlots } : {}),
      },
      deps,
    );
    for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => worker.shutdown());
    drainOnSignal(worker, deps.fleet, out.info);
    const forget = recordWorkerPid(settings.dexHome);
    const queues = [settings.taskQueue, settings.hostQueue, owner, ...(storeQueue ? [storeQueue] : [])];
    out.info(`dex worker polling ${queues.slice(0, -1).join(', ')} and ${queues.at(-1)} on ${conns.address}, store ${deps.store.location}`);
    out.info(`fleet member ${deps.fleet.worker.name}: up to ${taskSlots ?? DEFAULT_TASK_SLOTS} tasks from ${fleetQueueOf(settings.taskQueue)}, their activities on ${deps.fleet.worker.queue}`);
    try {
      await worker.run();
    } finally {
      forget();
    }
    await flushTracing();
  } finally {
    await deps.store.close();
  }
  await conns.close();
  return 0;
}

/** `--tasks K`: a whole number from 1, or a usage error. */
function taskSlotsOf(text: string): number {
  const k = Number(text);
  if (!Number.isInteger(k) || k < 1) throw new UsageError(`--tasks takes a whole number from 1, not "${text}": ${usageOf('worker')}`);
  return k;
}

/** A workflow host's worker on the shared queue (client/server/workflow-host.ts), named for how it runs. */
async function workflowHostWorker(conns: Connections, settings: Settings, role: WorkflowHostRole): Promise<DexWorker> {
  const identity = workflowHostIdentity(role);
  const connection = await conns.nativeConnection();
  return workerGroup([await createWorkflowWorker({ connection, namespace: settings.namespace, taskQueue: settings.taskQueue, dataConverter: conns.dataConverter, identity })]);
}

/** `dex worker --workflows-only`: workflow tasks and queries of every run on the shared queue, no activity, no key. */
async function serveWorkflowsOnly(conns: Connections, settings: Settings, out: Output): Promise<number> {
  const worker = await workflowHostWorker(conns, settings, 'worker');
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => worker.shutdown());
  out.info(`dex workflow host polling ${settings.taskQueue} (workflows only: no activities, no model key) on ${conns.address}`);
  await worker.run();
  await conns.close();
  return 0;
}

