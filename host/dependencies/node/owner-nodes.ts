import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { mountable } from '../host-toolchains';
import { nodeVersion, satisfies } from './node-version-range';

/** A Node installation of the owner's: its version, the folder holding `bin/node`, and which tool installed it. */
export interface OwnerNode {
  version: string;
  prefix: string;
  manager: string;
}

/** Where each version manager keeps its Node installations: a folder of versions, and the path from a version's folder to its prefix. */
function versionFolders(home: string, env: NodeJS.ProcessEnv): [manager: string, folder: string, inside: string][] {
  const fnm = env.FNM_DIR ? [env.FNM_DIR] : [join(home, '.local', 'share', 'fnm'), join(home, '.fnm')];
  return [
    ['nvm', join(env.NVM_DIR ?? join(home, '.nvm'), 'versions', 'node'), ''],
    ...fnm.map((dir): [string, string, string] => ['fnm', join(dir, 'node-versions'), 'installation']),
    ['volta', join(env.VOLTA_HOME ?? join(home, '.volta'), 'tools', 'image', 'node'), ''],
    ['asdf', join(env.ASDF_DATA_DIR ?? join(home, '.asdf'), 'installs', 'nodejs'), ''],
    ['n', join(env.N_PREFIX ?? '/usr/local', 'n', 'versions', 'node'), ''],
  ];
}

/**
 * The Node versions the owner has installed with nvm, fnm, volta, asdf or n (docs/real-repositories.md#node-engines),
 * newest first: those the sandbox may mount (host-toolchains.ts's `mountable`).
 */
export function ownerNodes(home = homedir(), env: NodeJS.ProcessEnv = process.env): OwnerNode[] {
  const found: OwnerNode[] = [];
  for (const [manager, folder, inside] of versionFolders(home, env)) {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      continue;
    }
    for (const name of names) {
      const prefix = join(folder, name, inside);
      if (!nodeVersion(name) || !existsSync(join(prefix, 'bin', 'node'))) continue;
      const real = realpathSync(prefix);
      if (mountable(real, home) && !found.some((n) => n.prefix === real)) found.push({ version: name.replace(/^v/, ''), prefix: real, manager });
    }
  }
  return found.sort((a, b) => compareVersions(b.version, a.version));
}

function compareVersions(a: string, b: string): number {
  const [x, y] = [nodeVersion(a)!, nodeVersion(b)!];
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
}

/**
 * Of `nodes` (newest first) that satisfy every range, the newest of the lowest major: the one
 * closest to what the project was tested with (`>=22` takes 22.14.0 over 24.11.1). Undefined when none does.
 */
export function nodeSatisfying(nodes: OwnerNode[], ranges: string[]): OwnerNode | undefined {
  const fits = nodes.filter((n) => ranges.every((range) => satisfies(nodeVersion(n.version)!, range)));
  const major = Math.min(...fits.map((n) => nodeVersion(n.version)![0]));
  return fits.find((n) => nodeVersion(n.version)![0] === major);
}

const versions = new Map<string, string>();

/** The version of the Node in `prefix` (`22.14.0`), else of the Node running dex, which the sandbox falls back to. */
export function nodeVersionAt(prefix: string | undefined): string {
  if (!prefix) return process.version.replace(/^v/, '');
  if (!versions.has(prefix)) {
    let out = process.version;
    try {
      out = execFileSync(join(prefix, 'bin', 'node'), ['--version'], { encoding: 'utf8', timeout: 15_000 }).trim();
    } catch {
      // A Node that does not run: its install says what is wrong.
    }
    versions.set(prefix, out.replace(/^v/, ''));
  }
  return versions.get(prefix)!;
}
