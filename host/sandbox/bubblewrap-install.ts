import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { dexCacheDir } from '../cache-dir';

/** Where `dex setup` keeps the bubblewrap it fetched itself: outside any clone, like the Temporal CLI. */
const bubblewrapDir = (): string => join(dexCacheDir(), 'bubblewrap');

/** The bubblewrap binary in that folder (it may not be there). */
export const cachedBwrap = (): string => join(bubblewrapDir(), 'usr', 'bin', 'bwrap');

/** Runs `command` in `cwd`; its first line of complaint when it fails. */
function attempt(command: string, args: string[], cwd: string): string | undefined {
  const run = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 300_000 });
  if (run.status === 0) return undefined;
  return (run.error?.message ?? run.stderr ?? `exit ${run.status}`).trim().split('\n').find((l) => l.trim() && !l.startsWith('W:')) ?? `exit ${run.status}`;
}

/**
 * Gets bubblewrap into dex's cache from the system's own package source, without installing
 * anything system-wide: `apt-get download bubblewrap` (a package list too old or empty is
 * refreshed first when dex runs as root) and `dpkg-deb -x` of it. Idempotent: a binary already
 * there is kept. Throws with the package tool's own words when it cannot be had.
 */
export function provisionBubblewrap(log: (line: string) => void): string {
  if (existsSync(cachedBwrap())) return cachedBwrap();
  const tmp = `${bubblewrapDir()}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  try {
    log('fetching bubblewrap, the sandbox of the agent\'s commands, from the system\'s package source (apt-get download bubblewrap)…');
    let failed = attempt('apt-get', ['download', '-qq', 'bubblewrap'], tmp);
    if (failed && process.getuid?.() === 0) {
      log('refreshing the package lists first (apt-get update)…');
      failed = attempt('apt-get', ['update', '-qq'], tmp) ?? attempt('apt-get', ['download', '-qq', 'bubblewrap'], tmp);
    }
    if (failed) throw new Error(`apt-get download bubblewrap: ${failed}`);
    const deb = readdirSync(tmp).find((name) => name.endsWith('.deb'));
    if (!deb) throw new Error('apt-get download bubblewrap left no package');
    const unpacked = attempt('dpkg-deb', ['-x', deb, 'root'], tmp);
    if (unpacked) throw new Error(`dpkg-deb -x ${deb}: ${unpacked}`);
    rmSync(bubblewrapDir(), { recursive: true, force: true });
    renameSync(join(tmp, 'root'), bubblewrapDir());
    log(`bubblewrap is at ${cachedBwrap()}`);
    return cachedBwrap();
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
