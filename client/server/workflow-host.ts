import { spawn } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { pollerAlive, pollerIdentities } from '../run/run-handles';
import { workflowCodeVersion } from '../../worker/workflow-code-version';
import { EMBEDDED_ADDRESS, type Settings } from '../settings';
import { claimHost, hostKey, liveHost, registryDir, wantQueue } from './host-registry';
import { CODEC_KEYS_ENV } from './payload-codec';

/**
 * The credential-free worker that keeps the embedded server's runs legible after the commands
 * that started them are gone (docs/architecture.md#who-serves-a-run): it runs workflow tasks and
 * queries only, for every run on the shared queue, holds no model key and runs no activity.
 * `dex server` runs one; a command on the embedded server asks the background one
 * (client/server/shared-host.ts) for its queue when none of its own code's version polls it.
 */
const PREFIX = 'dex-workflows';

/** How a workflow host runs: in the background (started by a command), in `dex server`, or as `dex worker --workflows-only`. */
export type WorkflowHostRole = 'detached' | 'server' | 'worker';

/** A workflow host's worker identity: the code it runs, how it runs, and where. */
export function workflowHostIdentity(role: WorkflowHostRole): string {
  return `${PREFIX} ${workflowCodeVersion()} ${role} ${process.pid}@${hostname()}`;
}

interface HostSeen {
  version: string;
  role: string;
  pid: number;
  host: string;
}

function parseIdentity(identity: string | null | undefined): HostSeen | undefined {
  const match = /^dex-workflows (\S+) (\S+) (\d+)@(\S+)$/.exec(identity ?? '');
  return match ? { version: match[1], role: match[2], pid: Number(match[3]), host: match[4] } : undefined;
}

async function hostsPolling(client: Client, settings: Settings): Promise<HostSeen[]> {
  const identities = await pollerIdentities(client, settings.namespace, settings.taskQueue, 'workflow');
  return identities.filter(pollerAlive).map(parseIdentity).filter((h): h is HostSeen => !!h);
}

/** The pids of background hosts of this machine polling `settings`' queue, of any code version. */
export async function localDetachedHosts(client: Client, settings: Settings): Promise<number[]> {
  return (await hostsPolling(client, settings)).filter((h) => h.role === 'detached' && h.host === hostname()).map((h) => h.pid);
}

/** Where this command's host is noted (client/server/host-registry.ts): its server's directory and its key. */
export function hostPlace(settings: Settings, env: NodeJS.ProcessEnv = process.env): { dir: string; key: string } {
  return { dir: registryDir(settings.address ?? EMBEDDED_ADDRESS, env), key: hostKey(workflowCodeVersion(), env[CODEC_KEYS_ENV]) };
}

/**
 * Makes sure a workflow host of this code's version serves this command's queue: asks the
 * background host of its server, code and codec for the queue (which also keeps an idle one from
 * leaving), stops a background one of another version on this machine (two versions on one queue
 * would replay each other's runs with different code), starts the background host when none is
 * left, and with `wait` waits until the queue is polled (a fresh host bundles the workflows first).
 */
export async function ensureWorkflowHost(client: Client, settings: Settings, log: (line: string) => void, { wait }: { wait: boolean }): Promise<void> {
  const version = workflowCodeVersion();
  const { dir, key } = hostPlace(settings);
  wantQueue(dir, key, { namespace: settings.namespace, queue: settings.taskQueue });
  const hosts = await hostsPolling(client, settings);
  if (hosts.some((h) => h.version === version)) return;
  for (const old of hosts) {
    if (old.role !== 'detached' || old.host !== hostname()) continue;
    log(`stopping dex's background workflow host ${old.pid}: it runs other code (${old.version}, this is ${version})`);
    try {
      process.kill(old.pid, 'SIGTERM');
    } catch {
      // gone already
    }
  }
  const start = () => {
    log(`starting dex's workflow host in the background (queries and Current Details of every run; log in ${join(settings.dexHome, 'workflow-host.log')})`);
    const pid = startDetachedHost(settings);
    // Noted at once, so a command right after this one finds it starting and starts no second one.
    if (pid) claimHost(dir, key, pid);
  };
  // A live host picks the queue up within a second; none (or one leaving just now) is started.
  if (!liveHost(dir, key)) start();
  if (!wait) return;
  const since = Date.now();
  let restarted = false;
  while (Date.now() - since < 60_000) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    // Asked again while waiting, so a host that took long to start does not find the ask stale.
    wantQueue(dir, key, { namespace: settings.namespace, queue: settings.taskQueue });
    if ((await hostsPolling(client, settings)).some((h) => h.version === version)) return;
    // The host this command found left (idle) before it picked the queue up: start another.
    if (!restarted && Date.now() - since > 5_000 && !liveHost(dir, key)) {
      restarted = true;
      start();
    }
  }
  log(`dex's workflow host did not start within 60 s (see ${join(settings.dexHome, 'workflow-host.log')}): this command serves its run itself`);
}

/** The background host (client/server/shared-host.ts) in its own process, without the model's credentials, outliving this command. */
function startDetachedHost(settings: Settings): number | undefined {
  mkdirSync(settings.dexHome, { recursive: true });
  const out = openSync(join(settings.dexHome, 'workflow-host.log'), 'a');
  const env: NodeJS.ProcessEnv = { ...process.env, TEMPORAL_NAMESPACE: settings.namespace, DEX_HOME: settings.dexHome };
  if (settings.address) env.TEMPORAL_ADDRESS = settings.address;
  for (const name of CREDENTIALS) delete env[name];
  const entry = join(__dirname, 'shared-host.ts');
  const child = spawn(process.execPath, ['-r', require.resolve('tsx/cjs'), entry], { detached: true, stdio: ['ignore', out, out], env, cwd: settings.dexHome });
  child.unref();
  return child.pid;
}

/** What a workflow host must not hold: it runs no activity, so it needs no model key. */
const CREDENTIALS = ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN'];
