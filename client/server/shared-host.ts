import { Client } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import type { Connections } from './connection';
import { claimHost, releaseHost, wantedQueues, type QueueRef } from './host-registry';
import { createWorkflowWorker } from '../../worker/workflow-worker';
import { connect } from './connection';
import { installRuntimeLogging } from './runtime-logging';
import { readSettings } from '../settings';
import { hostPlace, workflowHostIdentity } from './workflow-host';

/**
 * The background workflow host (docs/architecture.md#what-runs-in-the-background): one process
 * per server, code version and codec serves the workflow queues every command of them asked for
 * (client/server/host-registry.ts), one Worker a queue on one connection and one bundle. A queue
 * is served while a command asked for it or a run on it was open within `idleMs`; with none left
 * the host leaves, and the next command that needs it starts it again.
 */
interface SharedHostOptions {
  dir: string;
  key: string;
  identity: string;
  /** How long the host stays with no run open on its queues and no command asking for it. */
  idleMs: number;
  say: (line: string) => void;
}

/** DEX_WORKFLOW_HOST_IDLE: seconds an idle background host stays (docs/architecture.md#what-runs-in-the-background). @default 1800 */
function hostIdleMs(env: NodeJS.ProcessEnv = process.env): number {
  const seconds = Number(env.DEX_WORKFLOW_HOST_IDLE);
  return (Number.isFinite(seconds) && seconds > 0 ? seconds : 1800) * 1000;
}

const nameOf = (ref: QueueRef) => `${ref.namespace}/${ref.queue}`;

/** How often the host looks for new queues (a command that asked waits for that). */
const PICK_UP_MS = 300;

/** Serves until idle or `signal`; resolves once every Worker is down and the host's pid file is gone. */
async function runSharedHost(conns: Connections, opts: SharedHostOptions, signal: AbortSignal): Promise<void> {
  const { dir, key, say } = opts;
  if (!claimHost(dir, key, process.pid)) {
    say(`another workflow host of this code serves ${conns.address}: leaving it the queues`);
    return;
  }
  const workers = new Map<string, { worker: Worker; done: Promise<void> }>();
  const counters = new Map<string, Client>();
  try {
    const connection = await conns.nativeConnection();
    const serve = async (ref: QueueRef): Promise<void> => {
      const name = nameOf(ref);
      if (workers.has(name)) return;
      const worker = await createWorkflowWorker({ connection, namespace: ref.namespace, taskQueue: ref.queue, dataConverter: conns.dataConverter, identity: opts.identity, shared: true });
      const done = worker.run().catch((err: unknown) => say(`queue ${name}: ${err instanceof Error ? err.message : String(err)}`));
      workers.set(name, { worker, done });
      say(`serving the workflows of queue ${ref.queue} (namespace ${ref.namespace})`);
    };
    const drop = async (name: string): Promise<void> => {
      const served = workers.get(name);
      if (!served) return;
      workers.delete(name);
      if (served.worker.getState() === 'RUNNING') served.worker.shutdown();
      await served.done;
      say(`no longer serving queue ${name}: no run open there and no command asking`);
    };
    /** Whether a run on `ref` is open: a person may be watching it (the Web UI's Current Details). */
    const open = async (ref: QueueRef): Promise<boolean> => {
      const client = counters.get(ref.namespace) ?? new Client({ connection: conns.connection, namespace: ref.namespace });
      counters.set(ref.namespace, client);
      try {
        return (await client.workflow.count(`ExecutionStatus="Running" AND TaskQueue=${JSON.stringify(ref.queue)}`)).count > 0;
      } catch {
        // The server is gone or refuses: nothing to serve there.
        return false;
      }
    };
    const checkEveryMs = Math.max(250, Math.min(60_000, opts.idleMs / 2));
    /** When each queue last had a run open, as last checked. */
    const openAt = new Map<string, number>();
    let asked = -1;
    let checked = 0;
    while (!signal.aborted) {
      const wanted = wantedQueues(dir, key);
      const stamp = Math.max(0, ...wanted.map((q) => q.askedMs));
      const check = Date.now() - checked >= checkEveryMs;
      if (stamp === asked && !check) {
        await new Promise((resolve) => setTimeout(resolve, PICK_UP_MS));
        continue;
      }
      asked = stamp;
      if (check) {
        checked = Date.now();
        for (const ref of wanted) if (await open(ref)) openAt.set(nameOf(ref), checked);
      }
      // A queue is served while a command asked for it or a run was open on it within the idle time.
      const now = Date.now();
      const keep = wanted.filter((q) => now - Math.max(q.askedMs, openAt.get(nameOf(q)) ?? 0) < opts.idleMs);
      for (const ref of keep) await serve(ref).catch((err: unknown) => say(`queue ${ref.queue}: ${(err as Error).message}`));
      const kept = new Set(keep.map(nameOf));
      for (const name of [...workers.keys()]) if (!kept.has(name)) await drop(name);
      if (workers.size === 0 && keep.length === 0) {
        say(`idle for ${Math.round(opts.idleMs / 1000)} s (no run open on its queues, no command asking): leaving until a command needs it`);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, PICK_UP_MS));
    }
  } finally {
    releaseHost(dir, key, process.pid);
    for (const { worker } of workers.values()) if (worker.getState() === 'RUNNING') worker.shutdown();
    await Promise.all([...workers.values()].map((w) => w.done));
  }
}

/**
 * The background host's process, started by a command (client/server/workflow-host.ts) with this
 * file as its entry: it loads the connection and the workflow worker, not the CLI or any activity.
 */
async function main(): Promise<void> {
  // A long-running process's warnings belong in its log.
  installRuntimeLogging('WARN');
  const settings = readSettings();
  const stop = new AbortController();
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => stop.abort());
  const say = (line: string) => console.error(`${new Date().toISOString()} workflow host ${process.pid}: ${line}`);
  const idleMs = hostIdleMs();
  const conns = await connect(settings, say);
  say(`on ${conns.address}, leaving after ${Math.round(idleMs / 1000)} s idle (workflows only: no activities, no model key)`);
  try {
    await runSharedHost(conns, { ...hostPlace(settings), identity: workflowHostIdentity('detached'), idleMs, say }, stop.signal);
  } finally {
    await conns.close();
  }
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(`${new Date().toISOString()} workflow host ${process.pid}: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}
