import { randomBytes } from 'node:crypto';
import { link, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';

/** How a fill lock is kept and waited for (docs/real-repositories.md#the-cache). */
export interface FillLockTimes {
  /** A lock whose time was not refreshed for this long belongs to a holder that is gone: it is taken over. @default 10 minutes */
  staleMs: number;
  /** How often the holder refreshes its lock's time while it fills the key. @default 30 s */
  refreshMs: number;
  /** How often a waiter looks again. @default 1 s */
  pollMs: number;
}

/** The times dex uses: a holder refreshes twenty times within the stale bound, so a slow disk or a paused VM does not lose it its lock. */
export const FILL_LOCK_TIMES: FillLockTimes = { staleMs: 10 * 60_000, refreshMs: 30_000, pollMs: 1_000 };

/** Who holds a lock: written into the lock file before it is linked into place. */
interface Holder {
  host: string;
  pid: number;
  token: string;
  takenAt: string;
}

/** What a claim came to: `held` when this process fills the key (and `release`s when done); otherwise it was filled meanwhile, or the wait ran out. */
export interface FillClaim {
  held: boolean;
  /** How long the claim waited for another holder, in ms. */
  waitedMs: number;
  release(): Promise<void>;
}

/** What {@link claimFill} needs besides the lock's path. */
interface ClaimOptions {
  times: FillLockTimes;
  /** Give up waiting after this long and fill the key anyway (write-then-rename keeps one entry). */
  waitMs: number;
  /** True once the key is filled: the wait is over. */
  filled: () => boolean;
  /** Told who holds the lock on each look while waiting, and undefined once the wait ends. */
  onWait?: (holder?: string) => void;
  /** Aborting ends the wait (a cancelled activity): the claim rejects with an AbortError. */
  signal?: AbortSignal;
}

/** Tokens of the locks this process holds: a lock of this host and pid with another token was left by an earlier process (a restarted container reuses its pids). */
const held = new Set<string>();

const unique = () => `${process.pid}-${randomBytes(4).toString('hex')}`;

/**
 * Waits until this process holds the fill lock at `path`, the key is filled, or `waitMs` has
 * passed. The lock is a file linked into place (link fails when it exists: an exclusive create
 * that NFS honours, unlike flock, and never seen half-written), naming its holder's host and pid;
 * its time is refreshed while held, and a lock not refreshed for `staleMs`, or whose holder on
 * this host is dead, is taken over.
 */
export async function claimFill(path: string, opts: ClaimOptions): Promise<FillClaim> {
  const started = Date.now();
  let waited = false;
  const over = (): FillClaim => ({ held: false, waitedMs: waited ? Date.now() - started : 0, release: async () => undefined });
  try {
    for (;;) {
      if (opts.filled()) return over();
      // Looked at before trying to take it: a waiter on a shared volume reads once a second, and writes nothing.
      const lock = await readLock(path);
      if (!lock) {
        const mine = await create(path, opts.times);
        if (mine) return { ...mine, waitedMs: waited ? Date.now() - started : 0 };
      } else if (isStale(lock, opts.times)) {
        await takeOver(path, lock.raw);
        continue;
      }
      if (Date.now() - started >= opts.waitMs) return over();
      waited = true;
      opts.onWait?.(lock?.holder ? `${lock.holder.host} pid ${lock.holder.pid}` : 'a worker');
      await delay(opts.times.pollMs, undefined, { signal: opts.signal });
    }
  } finally {
    if (waited) opts.onWait?.(undefined);
  }
}

/** Takes the lock when nobody holds it; undefined when somebody does. */
async function create(path: string, times: FillLockTimes): Promise<Omit<FillClaim, 'waitedMs'> | undefined> {
  const holder: Holder = { host: hostname(), pid: process.pid, token: randomBytes(8).toString('hex'), takenAt: new Date().toISOString() };
  const raw = `${JSON.stringify(holder)}\n`;
  const draft = `${path}.new-${unique()}`;
  await writeFile(draft, raw);
  try {
    // The lock's time is the holder's clock from the start (a file server would stamp its own).
    await utimes(draft, new Date(), new Date());
    const linked = await link(draft, path).then(
      () => true,
      // Over NFS a retried link may answer EEXIST for the link it made: the draft's link count tells.
      async (err: NodeJS.ErrnoException) => {
        if (err.code === 'EEXIST') return (await stat(draft)).nlink === 2;
        throw err;
      },
    );
    if (!linked) return undefined;
  } finally {
    await rm(draft, { force: true });
  }
  held.add(holder.token);
  const ours = async () => (await readFile(path, 'utf8').catch(() => '')) === raw;
  // Only while the lock is still ours: one taken over (we were too slow) is the new holder's to refresh.
  const refresh = async () => {
    if (await ours()) await utimes(path, new Date(), new Date()).catch(() => undefined);
  };
  const ticker = setInterval(() => void refresh(), times.refreshMs);
  ticker.unref();
  return {
    held: true,
    release: async () => {
      clearInterval(ticker);
      held.delete(holder.token);
      if (await ours()) await rm(path, { force: true });
    },
  };
}

/** The lock at `path` as it is now: its text, its holder (when the text reads), its time; undefined when there is none. */
async function readLock(path: string): Promise<{ raw: string; holder?: Holder; mtimeMs: number } | undefined> {
  try {
    const [raw, stats] = await Promise.all([readFile(path, 'utf8'), stat(path)]);
    let holder: Holder | undefined;
    try {
      holder = JSON.parse(raw) as Holder;
    } catch {
      // Not dex's lock text: it goes stale by its time alone.
    }
    return { raw, holder, mtimeMs: stats.mtimeMs };
  } catch {
    return undefined;
  }
}

/** True when `pid` runs on this host. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** True when the lock's holder is gone: not refreshed within the bound, or a process of this host that is not running. */
function isStale(lock: { holder?: Holder; mtimeMs: number }, times: FillLockTimes): boolean {
  if (Date.now() - lock.mtimeMs > times.staleMs) return true;
  const holder = lock.holder;
  if (!holder || holder.host !== hostname()) return false;
  return holder.pid === process.pid ? !held.has(holder.token) : !alive(holder.pid);
}

/**
 * Removes the stale lock whose text is `seen`. It is renamed away first (one rename wins): when
 * what was renamed is a newer holder's lock (taken between our look and the rename), it is linked
 * back, unless yet another holder took the place meanwhile: at worst two workers fill the key,
 * and write-then-rename keeps one entry.
 */
async function takeOver(path: string, seen: string): Promise<void> {
  const tomb = `${path}.stale-${unique()}`;
  try {
    await rename(path, tomb);
  } catch {
    return;
  }
  if ((await readFile(tomb, 'utf8').catch(() => seen)) !== seen) await link(tomb, path).catch(() => undefined);
  await rm(tomb, { force: true });
}

/** Removes the lock at `path` when it is stale (for the cache's sweep); a live holder's lock is left alone. */
export async function clearStaleLock(path: string, times: FillLockTimes): Promise<void> {
  const lock = await readLock(path);
  if (lock && isStale(lock, times)) await takeOver(path, lock.raw);
}
