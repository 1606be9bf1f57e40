import { createHash } from 'node:crypto';
import { appendFileSync, closeSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processExists } from '../../host/process-owner';

/**
 * What dex leaves running beside a server, on disk (docs/architecture.md#what-runs-in-the-background):
 * one directory per user and server address, outside any DEX_HOME since every home's commands
 * share the server and its host. In it, per host key (the workflow code's version and the payload
 * codec: hosts share where both are the same), `<key>.queues/` holds a file per queue the
 * commands asked it to serve (its mtime: when one last asked) and `<key>.pid` names the host that
 * serves them; `server.pid` names the embedded dev server a command started.
 */
export function registryDir(address: string, env: NodeJS.ProcessEnv = process.env): string {
  const user = process.getuid?.() ?? 'user';
  return join(env.XDG_RUNTIME_DIR || tmpdir(), `dex-${user}`, 'workflow-hosts', address.replace(/[^\w.-]+/g, '_'));
}

/** A workflow queue of one namespace. */
export interface QueueRef {
  namespace: string;
  queue: string;
}

/**
 * The host key of this code `version` and the codec `codecKeys` names (runs of another codec's
 * clients are unreadable to this one), and of these notes' format: a host of another format would
 * not see the queues asked of it.
 */
export function hostKey(version: string, codecKeys: string | undefined): string {
  const codec = codecKeys?.trim() ? createHash('sha256').update(codecKeys.trim()).digest('hex').slice(0, 8) : 'plain';
  return `${version}-${codec}-${FORMAT}`;
}

/** The format of these notes. */
const FORMAT = 'r1';

const queuesDir = (dir: string, key: string) => join(dir, `${key}.queues`);
const pidFile = (dir: string, key: string) => join(dir, `${key}.pid`);

/** A queue asked of a host, and when last (ms since the epoch). */
interface AskedQueue extends QueueRef {
  askedMs: number;
}

/** The queues asked of host `key`, each with when it was last asked. */
export function wantedQueues(dir: string, key: string): AskedQueue[] {
  let names: string[] = [];
  try {
    names = readdirSync(queuesDir(dir, key));
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    try {
      const file = join(queuesDir(dir, key), name);
      const [namespace, queue] = readFileSync(file, 'utf8').trimEnd().split('\t');
      return namespace && queue ? [{ namespace, queue, askedMs: statSync(file).mtimeMs }] : [];
    } catch {
      return [];
    }
  });
}

/**
 * Asks host `key` to serve `ref`: one file a queue, rewritten on each ask so its mtime says when
 * it was last asked, which keeps the host serving it for its idle time (client/server/shared-host.ts).
 */
export function wantQueue(dir: string, key: string, ref: QueueRef): void {
  mkdirSync(queuesDir(dir, key), { recursive: true });
  const line = `${ref.namespace}\t${ref.queue}`;
  writeFileSync(join(queuesDir(dir, key), createHash('sha256').update(line).digest('hex').slice(0, 16)), `${line}\n`);
}

function readPid(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** The live host of `key`, if any. */
export function liveHost(dir: string, key: string): number | undefined {
  const pid = readPid(pidFile(dir, key));
  return pid && processExists(pid) ? pid : undefined;
}

/** Makes `pid` host `key` unless a live one is: true when it is now. A gone host's file is taken over. */
export function claimHost(dir: string, key: string, pid: number): boolean {
  mkdirSync(dir, { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(pidFile(dir, key), 'wx');
      writeSync(fd, String(pid));
      closeSync(fd);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = liveHost(dir, key);
      if (holder === pid) return true;
      if (holder) return false;
      removeFile(pidFile(dir, key));
    }
  }
  return false;
}

/** Gives up host `key` if `pid` holds it. */
export function releaseHost(dir: string, key: string, pid: number): void {
  if (readPid(pidFile(dir, key)) === pid) removeFile(pidFile(dir, key));
}

/** The hosts with a pid file here, live or not, by key. */
export function registeredHosts(dir: string): { key: string; pid: number | undefined }[] {
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((name) => name.endsWith('.pid') && name !== SERVER_PID)
    .map((name) => {
      const key = name.slice(0, -'.pid'.length);
      return { key, pid: liveHost(dir, key) };
    });
}

const SERVER_PID = 'server.pid';

/** Notes the pid of the embedded dev server a command started, for `dex server stop`. */
export function recordServer(dir: string, pid: number): void {
  mkdirSync(dir, { recursive: true });
  appendFileSync(join(dir, SERVER_PID), `${pid}\n`);
}

/** The live embedded dev servers (or `dex server` processes) noted here. */
export function recordedServers(dir: string): number[] {
  let text = '';
  try {
    text = readFileSync(join(dir, SERVER_PID), 'utf8');
  } catch {
    return [];
  }
  return [...new Set(text.split('\n').map(Number))].filter((pid) => Number.isInteger(pid) && pid > 0 && processExists(pid));
}

/** Forgets the servers noted here and the gone hosts' pid files. */
export function forgetStopped(dir: string): void {
  removeFile(join(dir, SERVER_PID));
  for (const { key, pid } of registeredHosts(dir)) if (!pid) removeFile(pidFile(dir, key));
}

function removeFile(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // gone already
  }
}
