// The sandbox's own /etc/passwd and /etc/group: the host's name every user of the machine, with
// their homes, and a task has no business reading them (docs/security.md#1-every-command-the-agent-causes-runs-in-bubblewrap).
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SANDBOX_HOME } from './sandbox-env';

/** The one user (and group) the sandbox knows: the worker's ids, under a name of dex's own. */
const SANDBOX_USER = 'dex';

/** The synthetic files' text for user `uid` in group `gid`: that user and group alone. */
function sandboxIdentity(uid: number, gid: number): { passwd: string; group: string } {
  return {
    passwd: `${SANDBOX_USER}:x:${uid}:${gid}:${SANDBOX_USER}:${SANDBOX_HOME}:/bin/sh\n`,
    group: `${SANDBOX_USER}:x:${gid}:\n`,
  };
}

let folder: string | undefined;

/** Writes `text` to `path` unless it is there already (only this process writes its folder). */
function keep(path: string, text: string): void {
  if (!existsSync(path)) writeFileSync(path, text, { mode: 0o644 });
}

/**
 * The host files to mount read-only as the sandbox's `/etc/passwd` and `/etc/group`: written once
 * per process into a folder of its own (and again should a cleaner of /tmp have taken them),
 * removed when the process exits. bubblewrap keeps the worker's user and group ids inside
 * (`--unshare-user` without `--uid`), so those are the ids the files name.
 */
export function sandboxIdentityFiles(): [hostPath: string, sandboxPath: string][] {
  if (!folder || !existsSync(folder)) {
    const made = mkdtempSync(join(tmpdir(), 'dex-identity-'));
    if (!folder) process.once('exit', () => rmSync(folder ?? made, { recursive: true, force: true }));
    folder = made;
  }
  const { passwd, group } = sandboxIdentity(process.getuid?.() ?? 0, process.getgid?.() ?? 0);
  keep(join(folder, 'passwd'), passwd);
  keep(join(folder, 'group'), group);
  return [
    [join(folder, 'passwd'), '/etc/passwd'],
    [join(folder, 'group'), '/etc/group'],
  ];
}
