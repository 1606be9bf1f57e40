// What the agent's file tools say when a path fails: always about the path the model gave,
// never a host path outside the worktree (see docs/security.md).
import { ToolInputError, symlinkRefusal } from './worktree-paths';

/** The model's `path` quoted for a message. */
export const quoted = (path: string): string => JSON.stringify(path);
const q = quoted;

/** A message about `path` for the errno `code`; never names a host path (those are outside what the model may see). */
function errnoMessage(code: string | undefined, path: string): string {
  switch (code) {
    case 'ENOENT':
      return `${q(path)} does not exist`;
    case 'EISDIR':
      return `${q(path)} is a folder, not a file`;
    case 'ENOTDIR':
      return `a part of ${q(path)} is a file, not a folder`;
    case 'ELOOP':
      return symlinkRefusal(path, path);
    case 'EACCES':
    case 'EPERM':
      return `permission denied: ${q(path)}`;
    case 'ENXIO': // opening a socket, or a FIFO for writing that no one reads
      return `${q(path)} is not a regular file; the file tools open regular files only`;
    case 'ENAMETOOLONG':
      return `${q(path)} has a name that is too long`;
    case 'ENOSPC':
    case 'EDQUOT':
      return `no space left on the disk to write ${q(path)}`;
    case 'EROFS':
      return `${q(path)} is on a read-only file system`;
    case 'ETXTBSY':
      return `${q(path)} is a running program and cannot be written`;
    case 'EMFILE':
    case 'ENFILE':
      return `too many open files to open ${q(path)}; try again`;
    default:
      return `${q(path)}: ${code ?? 'failed'}`;
  }
}

/** `err` as a {@link ToolInputError} about `path`; one already is passes through. */
export function toToolError(err: unknown, path: string): ToolInputError {
  if (err instanceof ToolInputError) return err;
  return new ToolInputError(errnoMessage((err as NodeJS.ErrnoException | undefined)?.code, path));
}

/** Runs `work`, turning every failure into a {@link ToolInputError} about `path`. */
export async function onWorktreePath<T>(path: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw toToolError(err, path);
  }
}
