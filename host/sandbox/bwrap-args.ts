import { existsSync, lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import { SANDBOX_HOME } from './sandbox-env';
import { gitViewArgs } from './git-view';
import { sandboxIdentityFiles } from './sandbox-identity';
import { isWithin, repositoryMetadata } from './repository-metadata';

/** System folders mounted read-only (or re-created as the links they are on merged-/usr systems). */
const SYSTEM_FOLDERS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/**
 * What of `/etc` a command may see: what programs need to start and trust certificates. Never the
 * whole folder: it holds `shadow`, and tokens in files like `npmrc`. Not the host's `passwd` and
 * `group` either, which name every user of the machine: the sandbox has its own (sandbox-identity.ts).
 */
const ETC_ENTRIES = [
  'alternatives', 'ca-certificates', 'ca-certificates.conf', 'debian_version', 'fonts', 'gai.conf',
  'host.conf', 'hostname', 'hosts', 'inputrc', 'java-17-openjdk', 'ld.so.cache', 'ld.so.conf', 'ld.so.conf.d',
  'locale.alias', 'localtime', 'magic', 'magic.mime', 'mime.types', 'nsswitch.conf', 'os-release',
  'perl', 'protocols', 'python3', 'resolv.conf', 'services', 'ssl', 'terminfo', 'timezone', 'xml',
];

/** What a sandboxed command gets to see and run. */
interface BwrapMounts {
  /** The task's worktree: the only writable host folder. */
  worktree: string;
  /** Host folders mounted read-only beside the system ones (toolchains). */
  readOnlyPaths: readonly string[];
  /** Files mounted read-only at a path of the sandbox's own: `[hostPath, sandboxPath]`. */
  extraFiles?: readonly (readonly [string, string])[];
  /** Host folders mounted read-write at a path of the sandbox's own: `[hostPath, sandboxPath]`. */
  writablePaths?: readonly (readonly [string, string])[];
}

/** The folder holding the running Node.js when it is not a system one (nvm, a tarball), so `npm test` finds it. */
export function nodeInstallPrefix(): string | undefined {
  const prefix = dirname(dirname(realpathSync(process.execPath)));
  return isSystemPath(prefix) ? undefined : prefix;
}

/** True when `path` is within the system folders every sandbox mounts. */
export const isSystemPath = (path: string): boolean => SYSTEM_FOLDERS.some((folder) => isWithin(path, folder));

function systemFolderArgs(): string[] {
  const args: string[] = [];
  for (const folder of SYSTEM_FOLDERS) {
    if (!existsSync(folder)) continue;
    const info = lstatSync(folder);
    if (info.isSymbolicLink()) args.push('--symlink', readlinkSync(folder), folder);
    else args.push('--ro-bind', folder, folder);
  }
  for (const entry of ETC_ENTRIES) args.push('--ro-bind-try', `/etc/${entry}`, `/etc/${entry}`);
  for (const [host, inside] of sandboxIdentityFiles()) args.push('--ro-bind', host, inside);
  return args;
}

/**
 * bubblewrap's arguments for running `argv` confined to `mounts.worktree` (docs/security.md):
 * every namespace of its own (no network, its own PIDs, no further user namespaces), no
 * capabilities, a new session, the system read-only, a private empty home and /tmp, the
 * worktree read-write, and the repository's git metadata read-only, so neither refs, config
 * nor hooks can be changed from inside, and without the owner's credentials (host/sandbox/git-view.ts).
 */
export function bwrapArgs(mounts: BwrapMounts, argv: readonly string[]): string[] {
  const worktree = realpathSync(mounts.worktree);
  const { dotGit, commonDir, gitDir } = repositoryMetadata(worktree);
  const args = [
    '--unshare-all', '--unshare-user', '--disable-userns', '--die-with-parent', '--new-session', '--cap-drop', 'ALL',
    ...systemFolderArgs(),
    '--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp', '--dir', SANDBOX_HOME,
  ];
  for (const path of mounts.readOnlyPaths) args.push('--ro-bind-try', path, path);
  if (commonDir && !isWithin(commonDir, worktree)) args.push('--ro-bind', commonDir, commonDir);
  args.push('--bind', worktree, worktree);
  if (dotGit) args.push('--ro-bind', dotGit, dotGit);
  // Over those mounts: the config without credentials, no reflogs or FETCH_HEAD (host/sandbox/git-view.ts).
  if (commonDir) args.push(...gitViewArgs(commonDir, gitDir));
  for (const [host, inside] of mounts.extraFiles ?? []) args.push('--ro-bind', host, inside);
  for (const [host, inside] of mounts.writablePaths ?? []) args.push('--bind', host, inside);
  args.push('--chdir', worktree, '--', ...argv);
  return args;
}
