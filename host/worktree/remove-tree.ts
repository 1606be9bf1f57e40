// Removing a tree that a task's commands made, however they made it: a command can nest folders
// thousands deep, past PATH_MAX, where git, fs.rm and Python's shutil.rmtree all fail
// (docs/security.md#bounded-paths).
import { chmod, lstat, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * How long (in bytes) a folder's path may grow while the tree is cut up before the folder is
 * moved to the top: far under PATH_MAX (4096), and shallow enough for a recursive removal.
 */
const CUT_BYTES = 1024;

/** Makes the folder `path` readable, writable and enterable by its owner, so what is in it can go. */
async function makeWritable(path: string): Promise<void> {
  const info = await lstat(path).catch(() => undefined);
  if (info?.isDirectory() && (info.mode & 0o700) !== 0o700) await chmod(path, info.mode | 0o700);
}

/** Moves the folder `from` to a free name `.dex-cut-<n>` in `root`; returns where it went. */
async function moveUp(from: string, root: string, taken: { count: number }): Promise<string> {
  for (;;) {
    const to = join(root, `.dex-cut-${taken.count++}`);
    try {
      await rename(from, to);
      return to;
    } catch (err) {
      // A name the tree already holds: take the next one.
      if (!['EEXIST', 'ENOTEMPTY'].includes((err as NodeJS.ErrnoException).code ?? '')) throw err;
    }
  }
}

/**
 * Cuts the tree at `root` into pieces no path of which passes {@link CUT_BYTES} below `root`:
 * every folder met that deep is moved up into `root`, and walked from there. Links are never
 * followed (a link is no folder to `readdir`'s types); every folder is made writable on the way.
 */
async function cutUp(root: string): Promise<void> {
  const taken = { count: 0 };
  const pending = [root];
  while (pending.length) {
    const folder = pending.pop()!;
    await makeWritable(folder);
    const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (!entry.isDirectory()) continue;
      const path = join(folder, entry.name);
      pending.push(Buffer.byteLength(path) - Buffer.byteLength(root) > CUT_BYTES ? await moveUp(path, root, taken) : path);
    }
  }
}

/**
 * Removes the folder (or file) at `path` and everything below it; a link in it goes, never what
 * it points to. A tree too deep for one path, or with folders that are not writable, is cut up
 * first and then removed: it never depends on the tree's depth.
 */
export async function removeTree(path: string): Promise<void> {
  try {
    await rm(path, { recursive: true, force: true });
    return;
  } catch {
    // ENAMETOOLONG below PATH_MAX's reach, EACCES in a read-only folder: cut it up and go again.
  }
  await cutUp(path);
  await rm(path, { recursive: true, force: true });
}
