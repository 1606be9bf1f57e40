/**
 * The bed's Temporal server: schemas set up with the SQL tool, the server started from the
 * config kept in the repo (deploy/temporal/cluster.yaml), the `default` namespace and dex's
 * search attributes registered as an operator would on any cluster.
 */
import { Connection } from '@temporalio/client';
import { execFile, execFileSync, spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { ensureTemporalCli } from '../../client/toolchain/toolchain';
import type { ServerTools } from './tools';

const execFileAsync = promisify(execFile);
export const REPO_ROOT = resolve(__dirname, '..', '..');
export const CONFIG_DIR = join(REPO_ROOT, 'deploy', 'temporal');

export interface TemporalSpec {
  dir: string;
  /** Frontend gRPC port; history +1, matching +2, worker +6, HTTP +10. */
  port: number;
  membershipPort: number;
  pgPort: number;
  pgUser: string;
  pgPassword: string;
}

export const addressOf = (spec: TemporalSpec) => `127.0.0.1:${spec.port}`;

/** The databases and their schema folders: persistence, then SQL visibility. */
const DATABASES = [
  ['temporal', 'temporal'],
  ['temporal_visibility', 'visibility'],
] as const;

/** create-database, setup-schema -v 0.0, update-schema -d …/versioned: what Temporal's images run, per database. */
export function setupSchemas(tools: ServerTools, spec: TemporalSpec): void {
  const env = { ...process.env, SQL_PLUGIN: 'postgres12', SQL_HOST: '127.0.0.1', SQL_PORT: String(spec.pgPort), SQL_USER: spec.pgUser, SQL_PASSWORD: spec.pgPassword };
  for (const [db, schema] of DATABASES) {
    const run = (...args: string[]) => execFileSync(tools.sql, ['--db', db, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    run('create-database');
    run('setup-schema', '-v', '0.0');
    run('update-schema', '-d', join(tools.schemaDir, schema, 'versioned'));
  }
}

/** Starts the server detached (it outlives `cluster.sh up`), its output in <dir>/temporal.log; returns its pid. */
export function spawnServer(tools: ServerTools, spec: TemporalSpec): number {
  const log = openSync(join(spec.dir, 'temporal.log'), 'a');
  const env = {
    ...process.env,
    POSTGRES_HOST: '127.0.0.1',
    POSTGRES_PORT: String(spec.pgPort),
    POSTGRES_USER: spec.pgUser,
    POSTGRES_PASSWORD: spec.pgPassword,
    TEMPORAL_PORT: String(spec.port),
    TEMPORAL_MEMBERSHIP_PORT: String(spec.membershipPort),
    TEMPORAL_BIND_IP: '127.0.0.1',
    TEMPORAL_DYNAMIC_CONFIG: join(CONFIG_DIR, 'dynamicconfig.yaml'),
  };
  const args = ['--root', '/', '--config', CONFIG_DIR, '--env', 'cluster', '--allow-no-auth', 'start'];
  const child = spawn(tools.server, args, { cwd: spec.dir, env, detached: true, stdio: ['ignore', log, log] });
  child.unref();
  if (!child.pid) throw new Error(`could not start ${tools.server}`);
  return child.pid;
}

/** Waits until the frontend answers GetSystemInfo; throws after `timeoutMs` naming the log. */
export async function waitForServer(spec: TemporalSpec, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const conn = await Connection.connect({ address: addressOf(spec), connectTimeout: 2_000 });
      try {
        await conn.workflowService.getSystemInfo({});
        return;
      } finally {
        await conn.close();
      }
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`the Temporal server did not answer at ${addressOf(spec)} within ${timeoutMs} ms (${(err as Error).message}); see ${join(spec.dir, 'temporal.log')}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

async function temporalCli(spec: TemporalSpec, ...args: string[]): Promise<string> {
  const { stdout } = await execFileAsync(ensureTemporalCli(), [...args, '--address', addressOf(spec)], { encoding: 'utf8' });
  return stdout;
}

/**
 * Registers `default` (one day's retention) with the stock CLI, then dex's search attributes with
 * `dex setup-namespace`, retried while the frontend's namespace cache has not yet seen the new namespace.
 */
export async function registerNamespace(spec: TemporalSpec): Promise<void> {
  try {
    await temporalCli(spec, 'operator', 'namespace', 'describe', '--namespace', 'default');
  } catch {
    await temporalCli(spec, 'operator', 'namespace', 'create', '--namespace', 'default', '--retention', '24h');
  }
  const env = { ...process.env, TEMPORAL_ADDRESS: addressOf(spec), TEMPORAL_NAMESPACE: 'default' };
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await execFileAsync(process.execPath, [join(REPO_ROOT, 'bin', 'dex.js'), 'setup-namespace'], { env, encoding: 'utf8' });
      return;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`dex setup-namespace failed: ${(err as { stderr?: string }).stderr ?? (err as Error).message}`);
      await new Promise((r) => setTimeout(r, 1_000));
    }
  }
}
