import { spawn } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { pollerAlive, pollerIdentities } from '../run/run-handles';
import { workflowCodeVersion } from '../../worker/workflow-code-version';
import type { Settings } from '../settings';

/**
 * The credential-free worker that keeps the embedded server's runs legible after the commands
 * that started them are gone (docs/architecture.md#who-serves-a-run): it runs workflow tasks and
 * queries only, for every run on the shared queue, holds no model key and runs no activity.
 * `dex server` runs one; a command on the embedded server starts one in the background when
 * none of its own code's version polls.
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

/**
 * Makes sure a workflow host of this code's version serves the embedded server's shared queue:
 * stops a background one of another version on this machine (two versions on one queue would
 * replay each other's runs with different code), starts one in the background when none is left,
 * and with `wait` waits until it polls (it bundles the workflows first, a few seconds).
 */
export async function ensureWorkflowHost(client: Client, settings: Settings, log: (line: string) => void, { wait }: { wait: boolean }): Promise<void> {
  const version = workflowCodeVersion();
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
  log(`starting dex's workflow host in the background (queries and Current Details of every run; log in ${join(settings.dexHome, 'workflow-host.log')})`);
  startDetachedHost(settings);
  if (!wait) return;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    if ((await hostsPolling(client, settings)).some((h) => h.version === version)) return;
  }
  log(`dex's workflow host did not start within 60 s (see ${join(settings.dexHome, 'workflow-host.log')}): this command serves its run itself`);
}

/** `dex worker --workflows-only` in the background, without the model's credentials, outliving this command. */
function startDetachedHost(settings: Settings): void {
  mkdirSync(settings.dexHome, { recursive: true });
  const out = openSync(join(settings.dexHome, 'workflow-host.log'), 'a');
  const env: NodeJS.ProcessEnv = { ...process.env, DEX_WORKFLOW_HOST: 'detached' };
  for (const name of CREDENTIALS) delete env[name];
  const bin = join(__dirname, '..', '..', 'bin', 'dex.js');
  const child = spawn(process.execPath, [bin, 'worker', '--workflows-only'], { detached: true, stdio: ['ignore', out, out], env, cwd: settings.dexHome });
  child.unref();
}

/** What a workflow host must not hold: it runs no activity, so it needs no model key. */
const CREDENTIALS = ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN'];
