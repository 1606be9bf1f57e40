import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dexGitSync } from '../git/dex-git';

/** Where inside the sandbox setup finds its download caches (npm's, pip's, the package managers dex fetches), bound from the host. */
export const DOWNLOADS_INSIDE = '/home/dex/.cache/dex-downloads';

/**
 * How one ecosystem of a repository gets its dependencies (docs/real-repositories.md#what-is-detected):
 * the install command in its locked form, the files whose content decides what it installs, and
 * the folders of the worktree it fills. Paths are relative to the worktree, except `toolchainPaths`.
 */
export interface EcosystemPlan {
  ecosystem: string;
  /** The shell line setup runs in the worktree, in the sandbox. */
  command: string;
  /**
   * The line run instead when the task itself changed a manifest (the agent added a dependency but
   * could not update the lockfile without network): it brings the lockfile in line. @default command
   */
  updateCommand?: string;
  /**
   * A shell line run just before the install command, in the same sandbox and network: it puts a
   * tool the command needs in the worktree (pnpm or yarn at the version the project pins).
   */
  prepare?: string;
  /** Files (relative) whose content keys the cache: lockfiles and manifests. */
  inputs: string[];
  /** What the command fills (relative folders or files): cached, and copied into each worktree. */
  outputs: string[];
  /** Folders (relative) the toolchain writes as it works (a build cache): never cached, never committed. */
  scratch?: string[];
  /** Registries setup may reach for this ecosystem. */
  hosts: string[];
  /** Commands whose output names the toolchain (its versions key the cache). */
  toolchain: string[];
  /** Environment of setup's command; `{worktree}` stands for the worktree's path. */
  setupEnv: Record<string, string>;
  /** Environment of every later command (agent, verify); `{worktree}` as above. */
  commandEnv: Record<string, string>;
  /** Folders (relative to the worktree, or absolute for a toolchain's) put first on PATH of setup, verify and the agent's commands. */
  binDirs: string[];
  /** Host folders of the toolchain the sandbox mounts read-only (a toolchain outside /usr). */
  toolchainPaths: string[];
  /** Why this machine cannot run the plan (no build tool to be had): setup fails with this line and runs nothing. */
  unavailable?: string;
  /**
   * The least processes (threads count) setup's, verify's and the agent's commands in the worktree
   * may have, above `sandbox.limits.processes`: a JVM build and its tests start hundreds of threads.
   */
  processes?: number;
}

/** The names of `names` that exist in `dir`. */
export const present = (dir: string, names: string[]): string[] => names.filter((name) => existsSync(join(dir, name)));

/** Git's answer in `dir` to `args` as paths (through dex's one door to git: host/git/dex-git.ts), or undefined outside a git repository. */
export function gitPaths(dir: string, args: string[]): string[] | undefined {
  try {
    return dexGitSync(dir, args).split('\0').filter(Boolean);
  } catch {
    return undefined;
  }
}

/** The text of the file at `path`, or undefined when it cannot be read (a project file detection may find absent). */
export function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** The JSON object at `path` (what a setup recorded in the worktree), empty when there is none or it is not one. */
export function readRecord<T>(path: string): Partial<T> {
  try {
    const value: unknown = JSON.parse(readText(path) ?? '{}');
    return value && typeof value === 'object' ? (value as Partial<T>) : {};
  } catch {
    return {};
  }
}

/**
 * The installation folders of the owner's toolchains for a project, as the owner's shell finds
 * them (host-toolchains.ts, docs/real-repositories.md#toolchains): each is mounted read-only in
 * the sandbox (unless a system folder) and its `bin` put on PATH after the worktree's own.
 */
export interface HostToolchains {
  /** `sys.base_prefix` of the owner's `python3` (a pyenv version, a uv-managed Python). */
  pythonPrefix?: string;
  /** The folder holding `bin/node` of the owner's `node` (nvm, fnm, volta). */
  nodePrefix?: string;
  /** `go env GOROOT`. */
  goRoot?: string;
  /** `rustc --print sysroot`: the toolchain's own folder, without rustup or ~/.cargo. */
  rustSysroot?: string;
  /** `java.home` of the JDK Maven and Gradle run: JAVA_HOME's, else the owner's `java`. */
  javaHome?: string;
}
