// One process at a time works on a repository mirror (host/git/repo-mirror.ts; docs/fleet.md#the-mirror):
// a lock file beside it, made whole in one step (written under a name of its own, then hard-linked
// to the lock's name, which fails when the lock is there) and naming its holder's pid and host. A
// lock whose holder on this host is gone (a worker killed mid-fetch) is taken over. The lock spares
// duplicate fetches; it is not what keeps a mirror whole: a clone is made in a staging folder and
// renamed, and git locks each ref it updates.

import { randomBytes } from 'node:crypto';
import { link, readFile, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { ApplicationFailure } from '@temporalio/common';
import { FAILURE } from '../../core/run/failure-types';

/** How often a waiting caller looks at the lock again. */
const POLL_MS = 100;
/** How long a caller waits for a live holder before its activity retries. @default 30 minutes: a first clone of a large repository */
const WAIT_MS = 30 * 60_000;

const errorCode = (err: unknown): unknown => (err as { code?: unknown })?.code;

/** Whether process `pid` of this host still runs (EPERM: it does, as another user). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return errorCode(err) === 'EPERM';
  }
}

/** Takes the lock at `path` if it is free; true when taken. */
async function tryTake(path: string, holder: string): Promise<boolean> {
  const mine = `${path}.${process.pid}-${randomBytes(4).toString('hex')}`;
  await writeFile(mine, holder);
  try {
    await link(mine, path);
    return true;
  } catch (err) {
    if (errorCode(err) === 'EEXIST') return false;
    throw err;
  } finally {
    await unlink(mine).catch(() => undefined);
  }
}

/** Removes the lock at `path` when its holder was a process of this host that is gone; true when it did. */
async function clearStale(path: string): Promise<boolean> {
  const [pid, host] = (await readFile(path, 'utf8').catch(() => '')).trim().split(' ');
  if (host !== hostname() || !/^\d+$/.test(pid) || alive(Number(pid))) return false;
  await unlink(path).catch(() => undefined);
  return true;
}

/** Runs `work` holding the lock at `path`, waiting while another holds it; `MirrorBusy` (retried) past `waitMs`. */
export async function withMirrorLock<T>(path: string, work: () => Promise<T>, waitMs: number = WAIT_MS): Promise<T> {
  const holder = `${process.pid} ${hostname()}\n`;
  const until = Date.now() + waitMs;
  while (!(await tryTake(path, holder))) {
    if (await clearStale(path)) continue;
    if (Date.now() > until) {
      const held = (await readFile(path, 'utf8').catch(() => '')).trim();
      throw ApplicationFailure.create({ type: FAILURE.MirrorBusy, message: `the mirror's lock ${path} is held (by ${held || 'a process'}) after ${Math.round(waitMs / 1000)} s` });
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  try {
    return await work();
  } finally {
    await unlink(path).catch(() => undefined);
  }
}
