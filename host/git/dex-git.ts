// The only door through which dex runs git. A task's worktree and repository are written by the
// agent dex drives, so git's configuration there is attacker-controlled: hooks, `core.hooksPath`,
// `core.fsmonitor` and nested repositories would otherwise run the agent's code with the
// worker's environment (API keys). Every git dex runs gets the settings below and a bare
// environment instead.

import { execFileSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdtempSync, readdirSync, rmdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleGit, type SimpleGit } from 'simple-git';

/** The committer dex uses when the repository configures none, and for the commits it lands in the owner's checkout. */
export const DEX_COMMITTER = { name: 'dex', email: 'dex@localhost' } as const;

/** The variables of the worker's environment git gets; nothing else (no API keys, no GIT_DIR). */
const PASSED_ENV = ['PATH', 'HOME', 'USER', 'LOGNAME', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TMPDIR', 'XDG_CONFIG_HOME'] as const;

/** Variables dex itself sets for git: never ask on a terminal, never read /etc/gitconfig. */
const GIT_ENV = { GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1' } as const;

let hooksDir: string | undefined;
let removeAtExit = false;

/** True when `path` is a real folder (no symlink) with nothing in it. */
function isEmptyFolder(path: string): boolean {
  try {
    return lstatSync(path).isDirectory() && readdirSync(path).length === 0;
  } catch {
    return false;
  }
}

/**
 * A folder of dex's own that holds no hooks, for `core.hooksPath`. mkdtemp makes a new folder
 * under a random name, so nobody can have planted it beforehand in a shared /tmp (the agent's
 * sandbox has a /tmp of its own); read-only so nothing writes into it by mistake; checked to be
 * empty at every use and replaced when it is not.
 */
export function emptyHooksDir(): string {
  if (hooksDir !== undefined && isEmptyFolder(hooksDir)) return hooksDir;
  hooksDir = mkdtempSync(join(tmpdir(), 'dex-empty-hooks-'));
  chmodSync(hooksDir, 0o555);
  if (!removeAtExit) {
    removeAtExit = true;
    process.once('exit', () => {
      try {
        if (hooksDir) rmdirSync(hooksDir);
      } catch {
        // Best effort: an empty folder left in the temporary folder harms nothing.
      }
    });
  }
  return hooksDir;
}

/**
 * The `key=value` settings every git dex runs gets as `-c` (command-line settings override every
 * config file, the repository's included). They are also what keeps nested repositories and
 * submodules harmless: git hands its `-c` settings to every git it starts through
 * GIT_CONFIG_PARAMETERS, so a child git in `sub/` ignores `sub/.git/config`'s fsmonitor and hooks too.
 */
export function dexGitConfig(): string[] {
  return [
    // Hooks are looked up in a folder with none: neither .git/hooks nor the repository's hooksPath runs.
    `core.hooksPath=${emptyHooksDir()}`,
    // fsmonitor names a program git would run on every status, add, diff and checkout.
    'core.fsmonitor=false',
    // Never descend into submodules (checkout, reset): their config is the agent's too.
    'submodule.recurse=false',
    // status and diff would otherwise start a git inside each submodule to see whether it is dirty.
    'diff.ignoreSubmodules=all',
    'status.submoduleSummary=false',
    // What dex sees as untracked (fingerprints, protected paths) comes from the disk, not from a cache in the index.
    'core.untrackedCache=false',
    // Signing runs gpg.program, which the repository may name.
    'commit.gpgsign=false',
    'tag.gpgsign=false',
    // dex never fetches or pushes: no transport (ssh commands, remote helpers) may start.
    'protocol.allow=never',
  ];
}

/**
 * The environment git runs with, from `source`: only the allowlisted variables and dex's own,
 * so no API key reaches a program git starts and no GIT_DIR or GIT_WORK_TREE redirects it.
 */
export function dexGitEnv(source: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of PASSED_ENV) {
    const value = source[name];
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...GIT_ENV };
}

/** simple-git in `baseDir` with dex's settings (plus `extraConfig`, `key=value`) and environment. */
export function dexGit(baseDir: string, extraConfig: string[] = []): SimpleGit {
  return simpleGit({
    baseDir,
    config: [...dexGitConfig(), ...extraConfig],
    // simple-git refuses GIT_* variables passed to .env() unless they are named here.
    allowEnvironment: [...Object.keys(GIT_ENV), 'GIT_SSL_CAINFO'],
    // simple-git refuses these keys in `-c` because a value could name a program to run. dex sets
    // them to turn things off (an empty hooks folder, no fsmonitor, no transport), so allow them.
    unsafe: { allowUnsafeHooksPath: true, allowUnsafeFsMonitor: true, allowUnsafeProtocolOverride: true },
  }).env(dexGitEnv());
}

/**
 * simple-git for a roadmap's landing on a remote the owner configured (docs/roadmaps.md#landing-on-a-remote):
 * dex's settings, but the file, ssh and https transports allowed (never `ext::`, which runs a
 * command), and the owner's ssh agent. Credentials come only from the owner's own config
 * (~/.gitconfig's helpers; the system config stays unread); the remote's hooks are its own business.
 * `caInfo`, a CA bundle file of dex's own (the forge's CA, docs/landing-through-prs.md#a-forge-behind-its-own-ca),
 * is the one variable more: GIT_SSL_CAINFO, which wins over the owner's `http.sslCAInfo`; without it, that config decides.
 */
export function dexRemoteGit(baseDir: string, extraConfig: string[] = [], caInfo?: string): SimpleGit {
  const transports = ['file', 'ssh', 'https'].map((name) => `protocol.${name}.allow=always`);
  const agent = process.env.SSH_AUTH_SOCK ? { SSH_AUTH_SOCK: process.env.SSH_AUTH_SOCK } : {};
  const ca = caInfo ? { GIT_SSL_CAINFO: caInfo } : {};
  return dexGit(baseDir, [...transports, ...extraConfig]).env({ ...dexGitEnv(), ...agent, ...ca });
}

/** The output of git `args` run in `cwd` with dex's settings and environment; throws when git fails. */
export function dexGitSync(cwd: string, args: string[]): string {
  return execFileSync('git', [...dexGitConfig().flatMap((setting) => ['-c', setting]), ...args], {
    cwd,
    env: dexGitEnv(),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
}

/** Whether `ref` names a commit in the repository at `repoPath` (git exits 1 when it does not). */
export function refExists(repoPath: string, ref: string): boolean {
  try {
    dexGitSync(repoPath, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
    return true;
  } catch {
    return false;
  }
}
