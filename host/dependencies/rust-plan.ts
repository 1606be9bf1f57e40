import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { present, type EcosystemPlan } from './ecosystem-plan';

/** The Rust plan of `dir`, for a crate with a `Cargo.lock`. */
export function rustPlan(dir: string, cargoHome: string | undefined, rustupHome: string | undefined): EcosystemPlan | undefined {
  if (!existsSync(join(dir, 'Cargo.lock'))) return undefined;
  const env: Record<string, string> = { CARGO_HOME: '{worktree}/.dex/cargo', ...(rustupHome ? { RUSTUP_HOME: rustupHome } : {}) };
  return {
    ecosystem: 'rust',
    command: 'cargo fetch --locked',
    inputs: present(dir, ['Cargo.toml', 'Cargo.lock']),
    outputs: ['.dex/cargo'],
    hosts: ['index.crates.io', 'static.crates.io', 'crates.io'],
    toolchain: ['cargo --version'],
    setupEnv: env,
    commandEnv: { ...env, CARGO_NET_OFFLINE: 'true' },
    binDirs: cargoHome ? [join(cargoHome, 'bin')] : [],
    toolchainPaths: [cargoHome, rustupHome].filter((p): p is string => !!p),
  };
}

