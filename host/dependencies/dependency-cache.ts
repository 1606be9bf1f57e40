import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { relocateVenv } from './python/relocate-venv';
import { removeTree } from '../worktree/remove-tree';
import { FILL_LOCK_TIMES, claimFill, clearStaleLock, type FillClaim, type FillLockTimes } from './fill-lock';

const execFileAsync = promisify(execFile);

/** Raised when cache entries of an older layout must not be read. Part of every key. */
const LAYOUT = 'dex-deps-1';

/** What a cache entry says about itself (`meta.json` beside its `tree/`). */
interface EntryMeta {
  ecosystem: string;
  /** The worktree the entry was installed in: absolute paths in it (a venv's scripts) are rewritten on the way out. */
  builtAt: string;
  outputs: string[];
  createdAt: string;
}

/**
 * The cache key of one ecosystem's dependencies: what decides what its install produces — the
 * install command, the content of its lockfiles and manifests, and its toolchain's versions.
 */
export function dependencyKey(parts: { ecosystem: string; command: string; inputs: { name: string; content: Buffer | string }[]; toolchain: string[] }): string {
  const hash = createHash('sha256').update(`${LAYOUT}\0${parts.ecosystem}\0${parts.command}\0`);
  for (const input of parts.inputs) hash.update(`${input.name}\0${createHash('sha256').update(input.content).digest('hex')}\0`);
  for (const version of parts.toolchain) hash.update(`${version}\0`);
  return hash.digest('hex').slice(0, 32);
}

/** Copies `from` to `to` (a folder or a file) keeping links, modes and times; reflinks where the filesystem can. */
export async function copyTree(from: string, to: string): Promise<void> {
  await mkdir(dirname(to), { recursive: true });
  await execFileAsync('cp', ['-a', '--reflink=auto', from, to], { maxBuffer: 16 * 1024 * 1024 });
}

/** Moves `from` to `to` by renaming; false when they are on two filesystems (the caller copies instead). */
async function moved(from: string, to: string): Promise<boolean> {
  await mkdir(dirname(to), { recursive: true });
  try {
    await rename(from, to);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EXDEV') return false;
    throw err;
  }
}

/** True when `path` exists (as anything, a dangling link included). */
function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * dex's dependency cache (docs/real-repositories.md#the-cache), on one host or on a volume a
 * fleet shares: one folder per key, written once (into a staging folder, then renamed into place,
 * so a reader never sees half an entry and two installs of the same key race harmlessly), and
 * only ever copied out of. A fill lock per key lets one worker install it while the others wait.
 *
 * Beside each entry it keeps one spare copy, made in the background after each use: the next
 * worktree of that key takes the spare by renaming it (no file is created then), and only a
 * worktree that finds none waits for a copy. On a filesystem where creating thousands of files
 * is slow, that is the difference between milliseconds and seconds (docs/performance.md#worktree-ready-time-issue-24).
 */
export class DependencyCache {
  /** Spares this process is making, by key. */
  private readonly making = new Map<string, Promise<void>>();

  /**
   * @param opts.spares keep a spare beside each entry. @default true (the bench measures the copy alone without)
   * @param opts.lock the fill lock's times. @default FILL_LOCK_TIMES
   */
  constructor(
    readonly root: string,
    private readonly opts: { spares?: boolean; lock?: FillLockTimes } = {},
  ) {}

  private lockFile(key: string): string {
    return join(this.root, `.fill-${key}.lock`);
  }

  private spare(key: string): string {
    return join(this.entry(key), 'spare');
  }

  private entry(key: string): string {
    return join(this.root, key);
  }

  /** True when the cache holds `key`. */
  has(key: string): boolean {
    return existsSync(join(this.entry(key), 'meta.json'));
  }

  /**
   * Copies the entry `key` into `worktree`: each of its outputs replaces the worktree's own, and a
   * virtual environment's absolute paths are rewritten to the new place.
   */
  async restore(key: string, worktree: string): Promise<'spare' | 'copy'> {
    const entry = this.entry(key);
    const meta = JSON.parse(await readFile(join(entry, 'meta.json'), 'utf8')) as EntryMeta;
    const taken = await this.takeSpare(key);
    for (const output of meta.outputs) {
      const target = join(worktree, output);
      // The agent's commands may have nested folders past PATH_MAX in it (docs/security.md#bounded-paths).
      await removeTree(target);
      const source = join(taken ?? join(entry, 'tree'), output);
      if (!exists(source)) continue;
      if (!taken || !(await moved(source, target))) await copyTree(source, target);
      // Any cached venv (`.venv`, or `venv` of a configured setup): its scripts and editable installs name the worktree it was made in.
      if (meta.builtAt !== worktree && existsSync(join(target, 'pyvenv.cfg'))) await relocateVenv(target, meta.builtAt, worktree);
    }
    if (taken) await rm(taken, { recursive: true, force: true });
    void this.prepareSpare(key);
    return taken ? 'spare' : 'copy';
  }

  /** Claims the entry's spare (renamed away, so no other worktree takes it too); undefined when there is none. */
  private async takeSpare(key: string): Promise<string | undefined> {
    if (this.opts.spares === false) return undefined;
    const claimed = join(this.entry(key), `.taken-${process.pid}-${randomBytes(4).toString('hex')}`);
    try {
      await rename(join(this.spare(key), 'tree'), claimed);
      return claimed;
    } catch {
      return undefined;
    }
  }

  /**
   * Makes the entry's next spare in the background, unless there is one or this process is making
   * it: a copy into a staging folder, renamed into place when whole. Waiting for it is only for tests.
   */
  prepareSpare(key: string): Promise<void> {
    if (this.opts.spares === false) return Promise.resolve();
    const running = this.making.get(key);
    if (running) return running;
    const make = async () => {
      if (exists(join(this.spare(key), 'tree')) || !this.has(key)) return;
      const staging = join(this.entry(key), `.spare-staging-${process.pid}-${randomBytes(4).toString('hex')}`);
      try {
        await copyTree(join(this.entry(key), 'tree'), join(staging, 'tree'));
        await mkdir(this.spare(key), { recursive: true });
        await rename(join(staging, 'tree'), join(this.spare(key), 'tree'));
      } catch {
        // Another process made the spare first, or the disk said no: the next worktree copies instead.
      } finally {
        await rm(staging, { recursive: true, force: true });
      }
    };
    const promise = make().finally(() => this.making.delete(key));
    this.making.set(key, promise);
    return promise;
  }

  /**
   * Keeps a copy of `outputs` of `worktree` (or of `sourceDir`, the owner's checkout) as entry
   * `key`. An entry another process stored first wins; ours is dropped.
   */
  async store(key: string, meta: { ecosystem: string; outputs: string[] }, worktree: string, sourceDir = worktree): Promise<void> {
    if (this.has(key)) return;
    await mkdir(this.root, { recursive: true });
    const staging = join(this.root, `.staging-${key}-${process.pid}-${randomBytes(4).toString('hex')}`);
    try {
      for (const output of meta.outputs) {
        if (exists(join(sourceDir, output))) await copyTree(join(sourceDir, output), join(staging, 'tree', output));
      }
      const about: EntryMeta = { ...meta, builtAt: sourceDir, createdAt: new Date().toISOString() };
      await mkdir(staging, { recursive: true });
      await writeFile(join(staging, 'meta.json'), `${JSON.stringify(about, null, 2)}\n`);
      await rename(staging, this.entry(key)).catch((err: NodeJS.ErrnoException) => {
        if (!['EEXIST', 'ENOTEMPTY'].includes(err.code ?? '')) throw err;
      });
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
    void this.prepareSpare(key);
  }

  /**
   * Waits for the right to fill `key` across every process and host sharing this folder
   * (docs/real-repositories.md#the-cache): `held` when this process should install it and then
   * `release`; not held when another filled it meanwhile (restore it), or when another's install
   * ran past `waitMs` (install too). `onWait` is told what it waits for on each look; `signal` ends the wait.
   */
  async claim(key: string, ecosystem: string, wait: { waitMs: number; onWait?: (line?: string) => void; signal?: AbortSignal }): Promise<FillClaim> {
    await mkdir(this.root, { recursive: true });
    return claimFill(this.lockFile(key), {
      times: this.opts.lock ?? FILL_LOCK_TIMES,
      waitMs: wait.waitMs,
      filled: () => this.has(key),
      onWait: (holder) => wait.onWait?.(holder && `waiting for another worker's install of ${ecosystem} (${key}), held by ${holder}`),
      signal: wait.signal,
    });
  }

  /** Removes fill locks whose holder is gone, and staging folders and claimed spares a crashed process left (older than an hour). */
  async sweep(): Promise<void> {
    const hourAgo = Date.now() - 3_600_000;
    const times = this.opts.lock ?? FILL_LOCK_TIMES;
    const stale = async (dir: string) => {
      for (const name of existsSync(dir) ? await readdir(dir) : []) {
        const path = join(dir, name);
        // On a shared volume another worker may have renamed or removed what was listed a moment ago.
        const stats = lstatSync(path, { throwIfNoEntry: false });
        if (!stats) continue;
        if (/^\.fill-\w+\.lock$/.test(name)) await clearStaleLock(path, times);
        else if (/^\.(staging|spare-staging|taken)-|^\.fill-\w+\.lock\.(new|stale)-/.test(name)) {
          if (stats.mtimeMs < hourAgo) await rm(path, { recursive: true, force: true });
        } else if (dir === this.root && !name.startsWith('.') && stats.isDirectory()) await stale(path);
      }
    };
    await stale(this.root);
  }
}

/** The content of each of `names` in `dir`, for a key. */
export function inputContents(dir: string, names: string[]): { name: string; content: Buffer }[] {
  return names.filter((name) => existsSync(join(dir, name))).map((name) => ({ name, content: readFileSync(join(dir, name)) }));
}
