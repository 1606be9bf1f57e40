import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { DEX_SEARCH_ATTRIBUTES } from '../../core/run/search-attributes';
import { ensureTemporalCli } from '../toolchain/toolchain';
import { recordServer, registryDir } from './host-registry';
import { EMBEDDED_ADDRESS } from '../settings';

/** The arguments of a persistent dev server: SQLite in WAL mode with NORMAL sync, and the Web UI. */
function devServerArgs(dexHome: string, port = 7233, uiPort = 8233): string[] {
  return [
    'server', 'start-dev',
    '--ip', '127.0.0.1',
    '--port', String(port),
    '--ui-port', String(uiPort),
    '--db-filename', join(dexHome, 'temporal.db'),
    '--sqlite-pragma', 'journal_mode=wal',
    '--sqlite-pragma', 'synchronous=normal',
    '--log-level', 'warn',
    ...dynamicConfigArgs(),
    ...searchAttributeArgs(),
  ];
}

/**
 * Dynamic config every dex dev server starts with (`KEY=VALUE`; docs/performance.md#where-a-dispatch-waits).
 * The dev server has one history shard, whose transfer queue reader is rate-limited to 20 reads a
 * second by default, and every workflow and activity task waited for it.
 * The reader reads when history notifies it of a new task, so the higher limit adds no idle reads.
 * Eager activity execution hands an activity on the workflow's own queue to the completing worker.
 * One partition per task queue: a dev server is one process, and with the default four a task
 * written to a partition with no waiting poller is forwarded to another, which slowed many runs at
 * once (docs/performance.md#where-many-runs-at-once-wait).
 * Queue checkpoints every second instead of every 30 s: until a checkpoint, the history queues keep
 * every finished task in memory and split them all on each new read, so under load the server's
 * CPU grew as a run went on (docs/performance.md#queue-checkpoints).
 */
export const DEV_SERVER_DYNAMIC_CONFIG: string[] = [
  'history.transferProcessorMaxPollRPS=1000',
  'system.enableActivityEagerExecution=true',
  'matching.numTaskqueueReadPartitions=1',
  'matching.numTaskqueueWritePartitions=1',
  'history.transferProcessorUpdateAckInterval="1s"',
  'history.timerProcessorUpdateAckInterval="1s"',
];

/** `--dynamic-config-value` arguments for {@link DEV_SERVER_DYNAMIC_CONFIG} and `extra` ones. */
export function dynamicConfigArgs(extra: string[] = []): string[] {
  return [...DEV_SERVER_DYNAMIC_CONFIG, ...extra].flatMap((kv) => ['--dynamic-config-value', kv]);
}

/**
 * The environment a dex dev server runs with: the caller's, and Go's GC target at 400 % unless the
 * caller set `GOGC` (docs/performance.md#the-workflow-threads-watchdog). Most of the server's heap is
 * the short-lived garbage of each request; collecting it a quarter as often spends less CPU for
 * more memory (figures in docs/performance.md).
 */
export function devServerEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...env, GOGC: env.GOGC ?? '400' };
}

/** The Temporal CLI's names of search attribute types. */
const SEARCH_ATTRIBUTE_CLI_TYPES: Record<string, string> = { KEYWORD: 'Keyword', DOUBLE: 'Double', TEXT: 'Text', INT: 'Int', BOOL: 'Bool', DATETIME: 'Datetime', KEYWORD_LIST: 'KeywordList' };

/** `temporal server start-dev` arguments registering dex's own search attributes (docs/interfaces.md), so runs can be listed by dex's state. */
export function searchAttributeArgs(): string[] {
  return DEX_SEARCH_ATTRIBUTES.flatMap((key) => ['--search-attribute', `${key.name}=${SEARCH_ATTRIBUTE_CLI_TYPES[key.type]}`]);
}

/** Starts the dev server in the foreground (for `dex server`), its output on this terminal. */
export function runDevServerForeground(dexHome: string): ChildProcess {
  mkdirSync(dexHome, { recursive: true });
  return spawn(ensureTemporalCli((l) => console.error(l)), devServerArgs(dexHome), { stdio: 'inherit', env: devServerEnv() });
}

/** Starts the dev server in the background, detached, so it outlives this command; its log goes to `<dexHome>/server.log`. */
export function startDevServerDetached(dexHome: string, log: (line: string) => void): void {
  mkdirSync(dexHome, { recursive: true });
  const out = openSync(join(dexHome, 'server.log'), 'a');
  const child = spawn(ensureTemporalCli(log), devServerArgs(dexHome), { detached: true, stdio: ['ignore', out, out], env: devServerEnv() });
  child.unref();
  // Noted for `dex server stop` (client/server/server-stop.ts).
  if (child.pid) recordServer(registryDir(EMBEDDED_ADDRESS), child.pid);
}
