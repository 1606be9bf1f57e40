import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { gitPaths, type EcosystemPlan } from './ecosystem-plan';

/**
 * The crate's manifests: the root's Cargo.toml and every workspace member's (any Cargo.toml git
 * tracks or would add), which decide what a lockfile resolves to. Build output is not looked at.
 */
function manifests(dir: string): string[] {
  const found = gitPaths(dir, ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', ':(glob)**/Cargo.toml']) ?? [];
  const nested = found.filter((path) => path !== 'Cargo.toml' && !/^(target|\.dex)\//.test(path));
  return ['Cargo.toml', ...[...new Set(nested)].sort()];
}

/** True when the project has its own Cargo.lock: git tracks it (one setup generated is not the project's), or, outside git, it exists. */
function projectLocks(dir: string): boolean {
  const tracked = gitPaths(dir, ['ls-files', '-z', '--', 'Cargo.lock']);
  return tracked ? tracked.length > 0 : existsSync(join(dir, 'Cargo.lock'));
}

/**
 * The Rust plan of `dir`, for any crate or workspace (docs/real-repositories.md#what-is-detected).
 * A project that tracks its Cargo.lock is fetched as locked; one without (as libraries publish)
 * gets a lockfile resolved at setup, which is then one of setup's outputs: cached with the
 * registry's files under the key of the manifests, so every task of the same Cargo.toml builds
 * the same versions, and never committed as the task's work. `target/` is the build's scratch.
 */
export function rustPlan(dir: string): EcosystemPlan | undefined {
  if (!existsSync(join(dir, 'Cargo.toml'))) return undefined;
  const locked = projectLocks(dir);
  const env = { CARGO_HOME: '{worktree}/.dex/cargo' };
  return {
    ecosystem: 'rust',
    command: locked ? 'cargo fetch --locked' : 'cargo generate-lockfile && cargo fetch --locked',
    // The agent changed a manifest: the tracked lockfile is brought in line (and is the task's work).
    updateCommand: locked ? 'cargo fetch' : undefined,
    inputs: [...manifests(dir), ...(locked ? ['Cargo.lock'] : [])],
    outputs: locked ? ['.dex/cargo'] : ['Cargo.lock', '.dex/cargo'],
    scratch: ['target'],
    hosts: ['index.crates.io', 'static.crates.io', 'crates.io'],
    toolchain: ['cargo --version'],
    setupEnv: env,
    commandEnv: { ...env, CARGO_NET_OFFLINE: 'true' },
    binDirs: [],
    toolchainPaths: [],
  };
}
