/**
 * The real parts of the cluster test bed (docs/production.md#the-cluster-test-bed), found or
 * installed into dex's tool cache outside any clone: the Temporal server and its SQL schema tool
 * (`go install`, pinned to the server version docker-compose.yml runs), the PostgreSQL schemas
 * that ship in the same Go module, and Debian's PostgreSQL binaries.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidInput } from '../../core/run/invalid-input';
import { toolCacheDir } from '../../client/toolchain/toolchain';

/** The Temporal server release the bed and docker-compose.yml run (temporalio/server:1.29.1). */
export const TEMPORAL_SERVER_VERSION = 'v1.29.1';
const MODULE = 'go.temporal.io/server';

export interface ServerTools {
  /** The `temporal-server` binary (cmd/server). */
  server: string;
  /** The SQL schema tool (cmd/tools/sql, `temporal-sql-tool` in Temporal's images). */
  sql: string;
  /** schema/postgresql/v12 of the same module: temporal/ and visibility/, each with versioned/. */
  schemaDir: string;
}

function onPath(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

/**
 * The server, the SQL tool and the schemas, built once with `go install` (a few minutes on two
 * cores) into a temp folder renamed into place, so an interrupted build is never taken as done.
 * The schemas are copied beside the binaries: the Go module cache may be cleaned, the tool cache stays.
 */
export function ensureServerTools(log: (line: string) => void = () => {}): ServerTools {
  const dir = join(toolCacheDir(), `temporal-server-${TEMPORAL_SERVER_VERSION}`);
  const tools = { server: join(dir, 'bin', 'server'), sql: join(dir, 'bin', 'sql'), schemaDir: join(dir, 'schema', 'postgresql', 'v12') };
  if (existsSync(tools.server) && existsSync(tools.sql) && existsSync(join(tools.schemaDir, 'temporal', 'versioned'))) return tools;
  if (!onPath('go')) {
    throw new InvalidInput(`the cluster test bed needs Go on PATH to build the Temporal server ${TEMPORAL_SERVER_VERSION}: install Go`);
  }
  log(`building the Temporal server ${TEMPORAL_SERVER_VERSION} and its SQL tool with go install (several minutes, once)…`);
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  try {
    const pkgs = ['cmd/server', 'cmd/tools/sql'].map((p) => `${MODULE}/${p}@${TEMPORAL_SERVER_VERSION}`);
    for (const pkg of pkgs) {
      execFileSync('go', ['install', pkg], { env: { ...process.env, GOBIN: join(tmp, 'bin'), GOFLAGS: '-mod=mod' }, stdio: ['ignore', 'ignore', 'inherit'] });
    }
    const modCache = execFileSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' }).trim();
    cpSync(join(modCache, `${MODULE}@${TEMPORAL_SERVER_VERSION}`, 'schema', 'postgresql', 'v12'), join(tmp, 'schema', 'postgresql', 'v12'), { recursive: true });
    // The module cache's files are read-only; the copies must be removable by whoever cleans the cache.
    execFileSync('chmod', ['-R', 'u+w', join(tmp, 'schema')]);
    rmSync(dir, { recursive: true, force: true });
    renameSync(tmp, dir);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return tools;
}

/** The bin folder of the newest PostgreSQL Debian installed (/usr/lib/postgresql/<major>/bin), or `DEX_PG_BIN`. */
export function postgresBin(): string {
  if (process.env.DEX_PG_BIN) return process.env.DEX_PG_BIN;
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))) : [];
  const newest = majors.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new InvalidInput('the cluster test bed needs PostgreSQL: apt-get install -y postgresql (or set DEX_PG_BIN to its bin folder)');
  return join(root, newest, 'bin');
}
