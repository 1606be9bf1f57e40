import { Client, Connection } from '@temporalio/client';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { processExists } from '../../host/process-owner';
import type { Settings } from '../settings';
import { EMBEDDED_ADDRESS } from '../settings';
import { forgetStopped, recordedServers, registeredHosts, registryDir } from './host-registry';
import { localDetachedHosts } from './workflow-host';

/** What `dex server stop` stopped, by pid. */
interface Stopped {
  hosts: number[];
  servers: number[];
}

/**
 * `dex server stop` (docs/architecture.md#what-runs-in-the-background): stops every background
 * workflow host of the server (noted in its directory, any of an older dex, which noted none, and
 * any other dex version's still polling this command's queue), then the embedded dev server a command or `dex server` started. Each gets
 * SIGTERM, then SIGKILL after `graceMs`. Runs are untouched: they wait in the server's database.
 */
export async function stopBackground(settings: Settings, graceMs = 10_000): Promise<Stopped> {
  const address = settings.address ?? EMBEDDED_ADDRESS;
  const dir = registryDir(address);
  const hosts = new Set(registeredHosts(dir).flatMap((h) => (h.pid ? [h.pid] : [])));
  for (const pid of await pollingHosts(address, settings)) hosts.add(pid);
  for (const pid of olderHosts(settings.address)) hosts.add(pid);
  await stopAll([...hosts], graceMs);
  const servers = new Set(recordedServers(dir));
  if (!settings.address) for (const pid of devServersOnPort(address)) servers.add(pid);
  await stopAll([...servers], graceMs);
  forgetStopped(dir);
  return { hosts: [...hosts], servers: [...servers] };
}

/** Background hosts of this machine polling this command's queue, of any dex version (an older dex noted none). */
async function pollingHosts(address: string, settings: Settings): Promise<number[]> {
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect({ address, connectTimeout: 2_000 });
    return await localDetachedHosts(new Client({ connection, namespace: settings.namespace }), settings);
  } catch {
    return [];
  } finally {
    await connection?.close();
  }
}

/**
 * The background hosts an older dex started (`dex worker --workflows-only` with
 * DEX_WORKFLOW_HOST=detached, one per queue, noted nowhere) for the server at `address`
 * (undefined: the embedded one) that are this user's (Linux: /proc).
 */
function olderHosts(address: string | undefined): number[] {
  return ownProcesses().filter((pid) => {
    try {
      const env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      const server = env.find((v) => v.startsWith('TEMPORAL_ADDRESS='))?.slice('TEMPORAL_ADDRESS='.length) || undefined;
      return env.includes('DEX_WORKFLOW_HOST=detached') && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--workflows-only') && server === address;
    } catch {
      return false;
    }
  });
}

/** This user's processes (Linux: /proc; elsewhere none). */
function ownProcesses(): number[] {
  let names: string[] = [];
  try {
    names = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  return names.map(Number).filter((pid) => {
    try {
      return pid !== process.pid && statSync(`/proc/${pid}`).uid === process.getuid?.();
    } catch {
      return false;
    }
  });
}

/** Temporal dev servers of this user listening on `address`'s port (Linux: /proc), however they were started. */
function devServersOnPort(address: string): number[] {
  const port = address.split(':').at(-1);
  return ownProcesses().filter((pid) => {
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      return args.includes('start-dev') && args[args.indexOf('--port') + 1] === port && args.includes('--db-filename');
    } catch {
      return false;
    }
  });
}

async function stopAll(pids: number[], graceMs: number): Promise<void> {
  for (const pid of pids) signal(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (pids.some(processExists) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  for (const pid of pids) if (processExists(pid)) signal(pid, 'SIGKILL');
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // gone already, or not ours
  }
}
