import { randomBytes } from 'node:crypto';

/**
 * A name part saying which process made a thing on disk (a sandbox's cgroup, a baseline's
 * checkout): `<pid>-<8 hex>`, unique within the process too. A later process removes what a
 * gone one left behind ({@link ownerGone}) and leaves alone what a live one is still using.
 */
export function ownerTag(): string {
  return `${process.pid}-${randomBytes(4).toString('hex')}`;
}

/** Whether the process that made `tag` is gone (a tag that names no pid counts as gone). */
export function ownerGone(tag: string): boolean {
  const pid = Number(/^(\d+)-/.exec(tag)?.[1]);
  return !Number.isInteger(pid) || pid <= 0 || !processExists(pid);
}

/** Whether process `pid` exists: signal 0 reaches it, or it is there and not ours to signal (EPERM). */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
