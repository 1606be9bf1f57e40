/**
 * The cluster test bed (docs/production.md#the-cluster-test-bed): PostgreSQL and the real
 * Temporal server on this host, bound to 127.0.0.1, in one folder (`DEX_CLUSTER_DIR`, default
 * <tmp>/dex-cluster) whose state.json says where everything is, so `down`, `status` and the
 * cluster suite's restarts find them. `up` on a running bed changes nothing.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidInput } from '../../core/run/invalid-input';
import { initPostgres, postgresReady, restartPostgres, startPostgres, stopPostgres, type PostgresSpec } from './postgres';
import { addressOf, registerNamespace, setupSchemas, spawnServer, waitForServer, type TemporalSpec } from './temporal';
import { ensureServerTools, postgresBin } from './tools';

export interface BedState {
  dir: string;
  address: string;
  pg: PostgresSpec;
  temporal: TemporalSpec;
  serverPid: number;
}

export const bedDir = () => process.env.DEX_CLUSTER_DIR || join(tmpdir(), 'dex-cluster');
const stateFile = (dir: string) => join(dir, 'state.json');

/**
 * Ports from the environment, else defaults clear of Temporal's and PostgreSQL's usual ones (a dev
 * server may hold 7233) and below Linux's ephemeral range (32768–60999), where any outgoing
 * connection or port-0 listener may hold a port for a while: PostgreSQL's old 55432 was taken so
 * once in CI, by the suite's own sockets.
 */
function ports(): { pg: number; temporal: number; membership: number } {
  const read = (name: string, fallback: number) => {
    const raw = process.env[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1024 || n > 65_000) throw new InvalidInput(`${name}=${raw} is not a port between 1024 and 65000`);
    return n;
  };
  return { pg: read('DEX_CLUSTER_PG_PORT', 15432), temporal: read('DEX_CLUSTER_PORT', 17233), membership: read('DEX_CLUSTER_MEMBERSHIP_PORT', 16933) };
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer().once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** Every port the bed binds, checked before anything starts, so a clash is one clear line, not a log to read. */
async function checkPorts(p: ReturnType<typeof ports>): Promise<void> {
  const wanted = [p.pg, ...[0, 1, 2, 6, 10].map((o) => p.temporal + o), ...[0, 1, 2, 6].map((o) => p.membership + o)];
  for (const port of wanted) {
    if (!(await portFree(port))) {
      throw new InvalidInput(`port ${port} on 127.0.0.1 is taken: set DEX_CLUSTER_PORT, DEX_CLUSTER_MEMBERSHIP_PORT or DEX_CLUSTER_PG_PORT to free ones`);
    }
  }
}

export function readBed(dir = bedDir()): BedState | undefined {
  return existsSync(stateFile(dir)) ? (JSON.parse(readFileSync(stateFile(dir), 'utf8')) as BedState) : undefined;
}

const saveBed = (state: BedState) => writeFileSync(stateFile(state.dir), JSON.stringify(state, null, 2), { mode: 0o600 });

/** Whether `pid` runs: a zombie (killed, its parent gone, not yet reaped by a container's init) does not. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return true; // no /proc (not Linux): kill(0) is all there is
  }
}

/** Brings the bed up (installing the server tools once); resolves with its state when the namespace takes runs. */
export async function up(log: (line: string) => void = () => {}): Promise<BedState> {
  const dir = bedDir();
  const running = readBed(dir);
  if (running && alive(running.serverPid) && postgresReady(running.pg)) {
    log(`already up: Temporal at ${running.address}, PostgreSQL at 127.0.0.1:${running.pg.port}`);
    return running;
  }
  if (running) await down(log); // half a bed (a crash, a reboot): start over
  const tools = ensureServerTools(log);
  postgresBin(); // fails now, with what to install, rather than after the ports are checked
  const p = ports();
  await checkPorts(p);
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  const password = randomBytes(18).toString('base64url');
  const pg: PostgresSpec = { dir: join(dir, 'pg'), port: p.pg, user: 'temporal', password };
  const temporal: TemporalSpec = { dir, port: p.temporal, membershipPort: p.membership, pgPort: p.pg, pgUser: pg.user, pgPassword: password };
  const state: BedState = { dir, address: addressOf(temporal), pg, temporal, serverPid: 0 };
  saveBed(state);
  log(`PostgreSQL: initdb and start on 127.0.0.1:${p.pg}…`);
  initPostgres(pg);
  startPostgres(pg);
  log('schemas: temporal and temporal_visibility with the SQL tool…');
  setupSchemas(tools, temporal);
  state.serverPid = spawnServer(tools, temporal);
  saveBed(state);
  log(`Temporal server (pid ${state.serverPid}) starting at ${state.address}…`);
  await waitForServer(temporal);
  await registerNamespace(temporal);
  log(`up: TEMPORAL_ADDRESS=${state.address} (namespace default, dex's search attributes registered)`);
  return state;
}

async function stopServer(pid: number, signal: NodeJS.Signals): Promise<void> {
  if (!pid || !alive(pid)) return;
  process.kill(pid, signal);
  const deadline = Date.now() + 20_000;
  while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (alive(pid)) process.kill(pid, 'SIGKILL');
  while (alive(pid)) await new Promise((r) => setTimeout(r, 50));
}

/** Stops the server and PostgreSQL and removes the bed's folder; nothing there is not an error. */
export async function down(log: (line: string) => void = () => {}): Promise<void> {
  const dir = bedDir();
  const state = readBed(dir);
  if (state) {
    await stopServer(state.serverPid, 'SIGTERM');
    stopPostgres(state.pg);
  }
  rmSync(dir, { recursive: true, force: true });
  log(state ? 'down: stopped and removed' : 'down: nothing was up');
}

/** One line a part: up or not, and where. */
export function status(): string[] {
  const state = readBed();
  if (!state) return ['down'];
  return [
    `temporal: ${alive(state.serverPid) ? `up (pid ${state.serverPid})` : 'not running'} at ${state.address}`,
    `postgresql: ${postgresReady(state.pg) ? 'up' : 'not answering'} at 127.0.0.1:${state.pg.port}`,
    `folder: ${state.dir}`,
  ];
}

/** SIGKILLs the Temporal server, as a crash would, and starts it again on the same ports and database. */
export async function crashAndRestartServer(state: BedState): Promise<BedState> {
  await stopServer(state.serverPid, 'SIGKILL');
  const next = { ...state, serverPid: spawnServer(ensureServerTools(), state.temporal) };
  saveBed(next);
  await waitForServer(state.temporal);
  return next;
}

/** `pg_ctl restart -m fast`: every connection the server holds is cut. */
export function restartDatabase(state: BedState): void {
  restartPostgres(state.pg);
}
