/**
 * The bed's PostgreSQL: a throwaway cluster made with initdb in the bed's folder, listening on
 * 127.0.0.1 only, password-protected (scram), and run as a non-root user because PostgreSQL
 * refuses to run as root (when the bed is started by root, `nobody` owns and runs it).
 */
import { execFileSync } from 'node:child_process';
import { chownSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { postgresBin } from './tools';

export interface PostgresSpec {
  /** The folder that holds data/, the log and the socket. */
  dir: string;
  port: number;
  user: string;
  password: string;
}

/** uid/gid of `nobody`, the user PostgreSQL runs as when we are root. */
const NOBODY = 65534;
const asRoot = () => process.getuid?.() === 0;

/** Runs a PostgreSQL binary as the user that owns the data (`runuser -u nobody` when we are root). */
function pg(spec: PostgresSpec, binary: string, args: string[]): string {
  const bin = join(postgresBin(), binary);
  const [cmd, argv] = asRoot() ? ['runuser', ['-u', 'nobody', '--', bin, ...args]] : [bin, args];
  return execFileSync(cmd, argv, { cwd: spec.dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

const dataDir = (spec: PostgresSpec) => join(spec.dir, 'data');

/** Creates the database cluster: superuser `spec.user` with `spec.password`, scram auth for every connection. */
export function initPostgres(spec: PostgresSpec): void {
  mkdirSync(spec.dir, { recursive: true, mode: 0o700 });
  if (asRoot()) chownSync(spec.dir, NOBODY, NOBODY);
  // initdb reads the password from a file, so it never shows in a process list; removed at once.
  const pwfile = join(spec.dir, 'pwfile');
  writeFileSync(pwfile, `${spec.password}\n`, { mode: 0o600 });
  if (asRoot()) chownSync(pwfile, NOBODY, NOBODY);
  try {
    pg(spec, 'initdb', ['-D', dataDir(spec), '-U', spec.user, '--auth=scram-sha-256', `--pwfile=${pwfile}`, '--no-sync', '-E', 'UTF8']);
  } finally {
    rmSync(pwfile, { force: true });
  }
}

/** Server options: loopback only, the socket in the bed's folder (not /run/postgresql, which nobody cannot write). */
const serverOptions = (spec: PostgresSpec) => `-c listen_addresses=127.0.0.1 -c port=${spec.port} -c unix_socket_directories=${spec.dir} -c max_connections=100`;

export function startPostgres(spec: PostgresSpec): void {
  pg(spec, 'pg_ctl', ['start', '-w', '-t', '60', '-D', dataDir(spec), '-l', join(spec.dir, 'postgres.log'), '-o', serverOptions(spec)]);
}

/**
 * `pg_ctl restart -m fast`: every connection is cut, as when the database host restarts. With -l,
 * or the new postmaster inherits pg_ctl's stdout and the caller waits on a pipe that never closes.
 */
export function restartPostgres(spec: PostgresSpec): void {
  pg(spec, 'pg_ctl', ['restart', '-w', '-t', '60', '-m', 'fast', '-D', dataDir(spec), '-l', join(spec.dir, 'postgres.log'), '-o', serverOptions(spec)]);
}

export function stopPostgres(spec: PostgresSpec): void {
  try {
    pg(spec, 'pg_ctl', ['stop', '-w', '-t', '30', '-m', 'fast', '-D', dataDir(spec)]);
  } catch {
    // Not running (never started, or already stopped): nothing to stop.
  }
}

/** Whether the server accepts connections (pg_isready). */
export function postgresReady(spec: PostgresSpec): boolean {
  try {
    pg(spec, 'pg_isready', ['-q', '-h', '127.0.0.1', '-p', String(spec.port)]);
    return true;
  } catch {
    return false;
  }
}
