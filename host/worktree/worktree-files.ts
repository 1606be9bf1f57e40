// The agent's file tools open a path once and then check what they opened, never the name:
// a command of the agent runs concurrently in the same worktree and can swap any name between
// a check and a use. Linux only (dex's sandbox is Linux): it needs /proc.
import { constants, type BigIntStats } from 'node:fs';
import { lstat, mkdir, open, stat, type FileHandle } from 'node:fs/promises';
import { onWorktreePath, quoted as q, toToolError } from './worktree-file-errors';
import { ToolInputError, symlinkRefusal, worktreePathParts } from './worktree-paths';

// O_CLOEXEC is not in fs.constants because libuv adds it to every open(2) on Linux itself.
const { O_RDONLY, O_WRONLY, O_RDWR, O_CREAT, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK, O_NOCTTY } = constants;

/** Opening a folder on the way: never through a symbolic link. O_NONBLOCK in case a FIFO is swapped in. */
const FOLDER_FLAGS = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK;

/**
 * How a file is opened: O_NONBLOCK so a FIFO never blocks the open, O_NOCTTY so a terminal
 * never becomes the worker's, no O_TRUNC before the checks.
 */
const FILE_FLAGS = {
  read: O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY,
  write: O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY,
  update: O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY,
} as const;

type Access = keyof typeof FILE_FLAGS;

/**
 * `name` inside the folder open as `dir`, as a path: Node has no openat(2), but the kernel
 * resolves /proc/self/fd/N to the folder actually opened, so O_NOFOLLOW applies to `name` alone.
 */
export function inFolder(dir: FileHandle, name = ''): string {
  return `/proc/self/fd/${dir.fd}/${name}`;
}

/** What a failed open met: a link, something swapped meanwhile, or what its errno says. */
type OpenMet = 'link' | 'swapped' | 'errno';

/**
 * What the open of `name` in `dir` that failed with `err` met. O_NOFOLLOW says ELOOP for a
 * link, but with O_DIRECTORY ENOTDIR, so lstat tells a link from a file (only for the message).
 */
async function whatOpenMet(err: unknown, dir: FileHandle, name: string): Promise<OpenMet> {
  const code = (err as NodeJS.ErrnoException).code;
  if (code !== 'ENOTDIR' && code !== 'ELOOP') return 'errno';
  const now = await lstat(inFolder(dir, name)).catch(() => undefined);
  if (now?.isSymbolicLink()) return 'link';
  // A folder (or nothing) now where the open met a link or a file: a command swapped it meanwhile.
  return now === undefined || now.isDirectory() ? 'swapped' : 'errno';
}

/** Why opening `name` in `dir` failed with `err`, as a message about `part` of the model's `path`. */
async function openFailure(err: unknown, path: string, part: string, dir: FileHandle, name: string): Promise<ToolInputError> {
  switch (await whatOpenMet(err, dir, name)) {
    case 'link':
      return new ToolInputError(symlinkRefusal(path, part));
    case 'swapped':
      return new ToolInputError(`${q(path)} changed while it was being opened; try again`);
    case 'errno':
      return toToolError(err, path);
  }
}

/** Set once /proc has shown an fd of this process: without it every open would say ENOENT. */
let procWorks = false;

/** Opens the worktree root. dex made it, so its own path is trusted, links in it included. */
async function openRoot(root: string): Promise<FileHandle> {
  let dir: FileHandle;
  try {
    dir = await open(root, O_RDONLY | O_DIRECTORY);
  } catch (err) {
    // The root's host path stays out of the message: the model knows it as ".".
    throw new ToolInputError(`the worktree cannot be opened: ${(err as NodeJS.ErrnoException).code ?? 'failed'}`);
  }
  if (!procWorks) {
    procWorks = await stat(inFolder(dir)).then(
      () => true,
      () => false,
    );
    if (!procWorks) {
      await dir.close();
      throw new ToolInputError('the file tools need Linux with /proc mounted; use run_command');
    }
  }
  return dir;
}

/** Opens the folder `name` in `dir`, never through a link; creates it first when `create`. */
async function openFolderIn(dir: FileHandle, name: string, create: boolean): Promise<FileHandle> {
  if (create) {
    // mkdir(2) does not follow a link as its last component (EEXIST): the open below refuses it.
    await mkdir(inFolder(dir, name)).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    });
  }
  return open(inFolder(dir, name), FOLDER_FLAGS);
}

/**
 * Opens the folder `parts` (components of the model's `path`) from the root down, each folder
 * relative to the one before; creates missing folders when `create`. The caller closes it.
 */
async function openFolders(root: string, path: string, parts: string[], create: boolean): Promise<FileHandle> {
  let dir = await openRoot(root);
  try {
    for (const [i, name] of parts.entries()) {
      const next = await openFolderIn(dir, name, create).catch(async (err: unknown) => {
        throw await openFailure(err, path, parts.slice(0, i + 1).join('/'), dir, name);
      });
      const parent = dir;
      dir = next;
      await parent.close();
    }
    return dir;
  } catch (err) {
    await dir.close();
    throw err;
  }
}

/** What a file that is not regular is, for a message. */
function kindOf(info: BigIntStats): string {
  if (info.isFIFO()) return 'a named pipe (FIFO)';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/**
 * Refuses `file` (opened as `name` in `dir`) unless it is a regular file whose only name is that
 * one: a hard link made by a command may be a file outside the worktree.
 */
async function checkOpened(file: FileHandle, dir: FileHandle, name: string, path: string, access: Access): Promise<BigIntStats> {
  const info = await file.stat({ bigint: true });
  if (info.isDirectory()) {
    throw new ToolInputError(access === 'read' ? `${q(path)} is a folder; use list_files` : `${q(path)} is a folder, not a file`);
  }
  if (!info.isFile()) throw new ToolInputError(`${q(path)} is ${kindOf(info)}; the file tools open regular files only`);
  if (info.nlink > 1n) {
    throw new ToolInputError(
      `${q(path)} has ${info.nlink} hard links; the file tools do not open a file with other names (one may be outside the worktree), use run_command`,
    );
  }
  // The link count can drop after the open (a command removes its own link to a file outside,
  // whose outside name stays): so the name must still be this very file, and its only name.
  const named = await lstat(inFolder(dir, name), { bigint: true }).catch(() => undefined);
  if (!named || named.ino !== info.ino || named.dev !== info.dev || named.nlink !== 1n) {
    throw new ToolInputError(`${q(path)} changed while it was being opened; try again`);
  }
  return info;
}

/** An open, checked regular file of the worktree and what fstat said about it. */
interface OpenedFile {
  file: FileHandle;
  info: BigIntStats;
}

/**
 * Opens the regular file at `path` (relative to the worktree at `root`) for `access`, walking
 * folders by fd and checking the opened file itself; `write` creates it and its folders. The
 * caller closes it. Throws {@link ToolInputError}s about `path` only.
 */
async function openWorktreeFile(root: string, path: string, access: Access): Promise<OpenedFile> {
  const parts = worktreePathParts(path);
  const name = parts.pop();
  if (name === undefined) throw new ToolInputError(`${q(path)} is the worktree root, a folder; use list_files`);
  const dir = await openFolders(root, path, parts, access === 'write');
  try {
    const file = await open(inFolder(dir, name), FILE_FLAGS[access], 0o666).catch(async (err: unknown) => {
      throw await openFailure(err, path, path, dir, name);
    });
    try {
      return { file, info: await checkOpened(file, dir, name, path, access) };
    } catch (err) {
      await file.close();
      throw err;
    }
  } finally {
    await dir.close();
  }
}

/** Up to `max` bytes from the start of `file`, read until its end: fstat's size may be stale (a file can grow). */
export async function readAtMost(file: FileHandle, max: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(max);
  let filled = 0;
  while (filled < max) {
    const { bytesRead } = await file.read(buffer, filled, max - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

/** The bytes of `file`, refused (about `path`) when more than `limit`. */
async function readLimited(opened: OpenedFile, path: string, limit: number): Promise<Buffer> {
  const tooBig = (size: string) =>
    new ToolInputError(
      `${q(path)} has ${size} bytes; read_file reads up to ${limit} (use run_command with head, tail or sed to read a part of it)`,
    );
  if (opened.info.size > BigInt(limit)) throw tooBig(String(opened.info.size));
  const bytes = await readAtMost(opened.file, limit + 1);
  if (bytes.length > limit) throw tooBig(`more than ${limit}`);
  return bytes;
}

/** Replaces the whole content of `file` with `bytes`; only called once the file passed its checks. */
async function overwrite(file: FileHandle, bytes: Buffer): Promise<void> {
  await file.truncate(0);
  for (let written = 0; written < bytes.length; ) {
    written += (await file.write(bytes, written, bytes.length - written, written)).bytesWritten;
  }
}

/** The bytes of the regular file at `path` in the worktree at `root`, at most `limit` of them (more is refused). */
export async function readWorktreeFile(root: string, path: string, limit: number): Promise<Buffer> {
  return onWorktreePath(path, async () => {
    const opened = await openWorktreeFile(root, path, 'read');
    try {
      return await readLimited(opened, path, limit);
    } finally {
      await opened.file.close();
    }
  });
}

/** Writes `content` to the regular file at `path` in the worktree at `root`, creating it and its folders. */
export async function writeWorktreeFile(root: string, path: string, content: string): Promise<void> {
  await onWorktreePath(path, async () => {
    const { file } = await openWorktreeFile(root, path, 'write');
    try {
      await overwrite(file, Buffer.from(content, 'utf8'));
    } finally {
      await file.close();
    }
  });
}

/**
 * Reads the regular file at `path` (at most `limit` bytes), passes its bytes to `change` and
 * writes what it returns, all through one open file; a `change` that throws writes nothing.
 */
export async function updateWorktreeFile(
  root: string,
  path: string,
  limit: number,
  change: (bytes: Buffer) => string,
): Promise<void> {
  await onWorktreePath(path, async () => {
    const opened = await openWorktreeFile(root, path, 'update');
    try {
      const next = change(await readLimited(opened, path, limit));
      await overwrite(opened.file, Buffer.from(next, 'utf8'));
    } finally {
      await opened.file.close();
    }
  });
}

/**
 * Opens the folder at `path` in the worktree at `root` (the caller closes it), or returns
 * `undefined` when `path` is something else that exists and is no link (a file, a FIFO …).
 */
export async function openWorktreeFolder(root: string, path: string): Promise<FileHandle | undefined> {
  return onWorktreePath(path, async () => {
    const parts = worktreePathParts(path);
    const name = parts.pop();
    if (name === undefined) return openRoot(root);
    const dir = await openFolders(root, path, parts, false);
    try {
      return await open(inFolder(dir, name), FOLDER_FLAGS).catch(async (err: unknown) => {
        // ENOTDIR from no link: `path` is a file of some kind, which O_DIRECTORY never opened.
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOTDIR' && (await whatOpenMet(err, dir, name)) === 'errno') return undefined;
        throw await openFailure(err, path, path, dir, name);
      });
    } finally {
      await dir.close();
    }
  });
}

/** Opens the folder `name` in `dir` for a listing, never through a link; the caller closes it. */
export async function openSubfolder(dir: FileHandle, name: string): Promise<FileHandle> {
  return open(inFolder(dir, name), FOLDER_FLAGS);
}
