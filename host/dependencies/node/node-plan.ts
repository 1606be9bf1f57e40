import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DOWNLOADS_INSIDE, present, type EcosystemPlan } from '../ecosystem-plan';
import { DOWNLOADS_ENV, packageManagerId, pmDir, placePackageManager, pnpmOf, yarnOf, type PackageManager } from './package-manager';
import { workspacePackages } from './workspaces';

const NPM_REGISTRY = 'registry.npmjs.org';
const NODE_OUTPUTS = ['node_modules'];
const NODE_BIN = ['node_modules/.bin'];
const NODE_TOOLCHAIN = ['node --version', 'npm --version'];

/** True when a package.json names any dependency: one without a lockfile or dependencies has nothing to install. */
function declaresDependencies(path: string): boolean {
  try {
    const pkg = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    return ['dependencies', 'devDependencies', 'optionalDependencies'].some((field) => Object.keys((pkg[field] as object | undefined) ?? {}).length > 0);
  } catch {
    // A package.json npm cannot read either: its install says what is wrong.
    return true;
  }
}

/** The plan of a pnpm or yarn project: its package manager placed in the worktree first, at the version it pins (docs/real-repositories.md#package-managers). */
function packageManagerPlan(dir: string, pm: PackageManager): EcosystemPlan {
  const workspaces = workspacePackages(dir);
  // pnpm (and yarn with nohoist) give each workspace package its own node_modules: kept with the root's.
  const nested = workspaces.map((rel) => `${rel}/node_modules`);
  const manifests = workspaces.map((rel) => `${rel}/package.json`);
  const common = {
    toolchain: ['node --version', `echo '${packageManagerId(pm)}'`],
    binDirs: [...NODE_BIN, `${pmDir(pm)}/bin`],
    commandEnv: {},
    toolchainPaths: [],
    prepare: placePackageManager(pm),
  };
  if (pm.name === 'pnpm') {
    return {
      ...common,
      ecosystem: 'pnpm',
      command: 'pnpm install --frozen-lockfile',
      updateCommand: 'pnpm install --no-frozen-lockfile',
      inputs: present(dir, ['package.json', 'pnpm-lock.yaml', 'pnpm-workspace.yaml', '.npmrc', ...manifests]),
      outputs: [...NODE_OUTPUTS, ...nested],
      hosts: [NPM_REGISTRY],
      // Files copied out of pnpm's store, never hard links to it: a task writing into node_modules must not reach the store.
      setupEnv: { ...DOWNLOADS_ENV, npm_config_store_dir: `${DOWNLOADS_INSIDE}/pnpm-store`, npm_config_package_import_method: 'copy', npm_config_update_notifier: 'false' },
    };
  }
  const berryOutputs = ['.pnp.cjs', '.pnp.loader.mjs', '.yarn/unplugged', '.yarn/install-state.gz', pmDir(pm)];
  return {
    ...common,
    ecosystem: 'yarn',
    command: pm.berry ? 'yarn install --immutable' : 'yarn install --frozen-lockfile --non-interactive',
    updateCommand: pm.berry ? 'yarn install' : 'yarn install --non-interactive',
    inputs: present(dir, ['package.json', 'yarn.lock', '.yarnrc.yml', '.yarnrc', '.npmrc', ...(pm.yarnPath ? [pm.yarnPath] : []), ...manifests]),
    outputs: [...NODE_OUTPUTS, ...(pm.berry ? berryOutputs : []), ...nested],
    hosts: [NPM_REGISTRY, 'registry.yarnpkg.com', 'repo.yarnpkg.com'],
    setupEnv: { ...DOWNLOADS_ENV, YARN_CACHE_FOLDER: `${DOWNLOADS_INSIDE}/yarn`, YARN_ENABLE_GLOBAL_CACHE: 'false' },
  };
}

/** The Node plan of `dir`: pnpm, yarn or npm, by lockfile (docs/real-repositories.md#what-is-detected). */
export function nodePlan(dir: string): EcosystemPlan | undefined {
  if (!existsSync(join(dir, 'package.json'))) return undefined;
  if (existsSync(join(dir, 'pnpm-lock.yaml'))) return packageManagerPlan(dir, pnpmOf(dir));
  if (existsSync(join(dir, 'yarn.lock'))) return packageManagerPlan(dir, yarnOf(dir));
  const lock = present(dir, ['npm-shrinkwrap.json', 'package-lock.json']);
  if (!lock.length && !declaresDependencies(join(dir, 'package.json'))) return undefined;
  // npm hoists a workspace's dependencies to the root, except a version that conflicts: that one is in the package's own node_modules.
  const workspaces = workspacePackages(dir);
  return {
    outputs: [...NODE_OUTPUTS, ...workspaces.map((rel) => `${rel}/node_modules`)],
    binDirs: NODE_BIN,
    toolchain: NODE_TOOLCHAIN,
    commandEnv: {},
    toolchainPaths: [],
    ecosystem: 'npm',
    // Without a lockfile only package.json says what to install; `npm install` then writes no lockfile into the worktree.
    command: lock.length ? 'npm ci --no-audit --no-fund' : 'npm install --no-audit --no-fund --no-package-lock',
    updateCommand: lock.length ? 'npm install --no-audit --no-fund' : undefined,
    inputs: present(dir, ['package.json', ...lock, '.npmrc', ...workspaces.map((rel) => `${rel}/package.json`)]),
    hosts: [NPM_REGISTRY],
    setupEnv: { npm_config_cache: `${DOWNLOADS_INSIDE}/npm`, npm_config_update_notifier: 'false' },
  };
}

