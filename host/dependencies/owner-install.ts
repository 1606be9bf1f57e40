import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { EcosystemPlan } from './ecosystem-plan';

/** npm's own record of what it installed (`node_modules/.package-lock.json`), by package path. */
type Installed = Record<string, { version?: string; optional?: boolean; link?: boolean }>;

function packagesOf(path: string): Installed | undefined {
  try {
    return (JSON.parse(readFileSync(path, 'utf8')) as { packages?: Installed }).packages;
  } catch {
    return undefined;
  }
}

/** True when npm's record of the installed tree names every package of the lockfile at its version. */
function installedAsLocked(ownerDir: string): boolean {
  const locked = packagesOf(join(ownerDir, 'package-lock.json')) ?? packagesOf(join(ownerDir, 'npm-shrinkwrap.json'));
  const installed = packagesOf(join(ownerDir, 'node_modules', '.package-lock.json'));
  if (!locked || !installed) return false;
  return Object.entries(locked).every(([path, entry]) => path === '' || entry.optional || entry.link || installed[path]?.version === entry.version);
}

/** True when a folder below `dir` holds a compiled addon (`*.node`): built for the owner's Node, which may not be the sandbox's. */
function hasNativeAddon(dir: string): boolean {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isFile() && entry.name.endsWith('.node')) return true;
    if (entry.isDirectory() && hasNativeAddon(join(dir, entry.name))) return true;
  }
  return false;
}

/**
 * True when the owner's checkout has `plan`'s dependencies installed for exactly the worktree's
 * lockfile (docs/real-repositories.md#the-cache): an npm project whose package.json and lockfile
 * are the worktree's, whose node_modules npm records as installed at every locked version, and
 * which holds no compiled addon (the owner's Node may not be the sandbox's). pnpm's and yarn's
 * trees are installed instead: dex cannot tell theirs from stale.
 */
export function ownerHasSame(plan: EcosystemPlan, worktree: string, ownerDir: string | undefined): boolean {
  if (!ownerDir || plan.ecosystem !== 'npm' || !existsSync(join(ownerDir, 'node_modules'))) return false;
  const sameInputs = plan.inputs.every((name) => existsSync(join(ownerDir, name)) && readFileSync(join(worktree, name)).equals(readFileSync(join(ownerDir, name))));
  return sameInputs && installedAsLocked(ownerDir) && !hasNativeAddon(join(ownerDir, 'node_modules'));
}
