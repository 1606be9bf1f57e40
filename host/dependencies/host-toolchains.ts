import { execFileSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { findOnPath } from '../find-on-path';
import type { HostToolchains } from './ecosystem-plan';

let found: HostToolchains | undefined;

/** Where this host's Go and Rust toolchains are (looked up once per process). */
export function hostToolchains(): HostToolchains {
  if (found) return found;
  const goLink = findOnPath('go');
  const go = goLink && realpathSync(goLink);
  const cargo = findOnPath('cargo');
  let goRoot: string | undefined;
  if (go) {
    try {
      goRoot = execFileSync(go, ['env', 'GOROOT'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() || undefined;
    } catch {
      goRoot = dirname(dirname(go));
    }
  }
  // rustup's cargo is a link to rustup in CARGO_HOME/bin, which reads its toolchains from RUSTUP_HOME.
  const cargoHome = cargo ? dirname(dirname(cargo)) : undefined;
  const rustupHome = process.env.RUSTUP_HOME ?? (existsSync(join(homedir(), '.rustup')) ? join(homedir(), '.rustup') : undefined);
  found = { goRoot, cargoHome, rustupHome: cargo ? rustupHome : undefined };
  return found;
}
