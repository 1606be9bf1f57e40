import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DOWNLOADS_INSIDE, present, type EcosystemPlan } from './ecosystem-plan';

const NPM_REGISTRY = 'registry.npmjs.org';
const NODE_OUTPUTS = ['node_modules'];
const NODE_BIN = ['node_modules/.bin'];
const NODE_TOOLCHAIN = ['node --version', 'npm --version'];
/** corepack fetches pnpm and yarn themselves from the npm registry, into the download cache. */
const COREPACK_ENV = { COREPACK_HOME: `${DOWNLOADS_INSIDE}/corepack`, COREPACK_ENABLE_DOWNLOAD_PROMPT: '0' };

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

/** The Node plan of `dir`: pnpm, yarn or npm, by lockfile (docs/real-repositories.md#what-is-detected). */
export function nodePlan(dir: string): EcosystemPlan | undefined {
  if (!existsSync(join(dir, 'package.json'))) return undefined;
  const base = { outputs: NODE_OUTPUTS, binDirs: NODE_BIN, toolchain: NODE_TOOLCHAIN, commandEnv: {}, toolchainPaths: [] };
  if (existsSync(join(dir, 'pnpm-lock.yaml'))) {
    return {
      ...base,
      ecosystem: 'pnpm',
      command: 'corepack pnpm install --frozen-lockfile',
      updateCommand: 'corepack pnpm install --no-frozen-lockfile',
      inputs: present(dir, ['package.json', 'pnpm-lock.yaml', 'pnpm-workspace.yaml', '.npmrc']),
      hosts: [NPM_REGISTRY],
      // Files copied out of pnpm's store, never hard links to it: a task writing into node_modules must not reach the store.
      setupEnv: { ...COREPACK_ENV, npm_config_store_dir: `${DOWNLOADS_INSIDE}/pnpm-store`, npm_config_package_import_method: 'copy' },
    };
  }
  if (existsSync(join(dir, 'yarn.lock'))) {
    const berry = existsSync(join(dir, '.yarnrc.yml'));
    return {
      ...base,
      ecosystem: 'yarn',
      command: berry ? 'corepack yarn install --immutable' : 'corepack yarn install --frozen-lockfile --non-interactive',
      updateCommand: berry ? 'corepack yarn install' : 'corepack yarn install --non-interactive',
      inputs: present(dir, ['package.json', 'yarn.lock', '.yarnrc.yml', '.yarnrc', '.npmrc']),
      outputs: berry ? ['node_modules', '.pnp.cjs', '.pnp.loader.mjs', '.yarn/unplugged', '.yarn/install-state.gz'] : NODE_OUTPUTS,
      hosts: [NPM_REGISTRY, 'registry.yarnpkg.com', 'repo.yarnpkg.com'],
      setupEnv: { ...COREPACK_ENV, YARN_CACHE_FOLDER: `${DOWNLOADS_INSIDE}/yarn`, YARN_ENABLE_GLOBAL_CACHE: 'false' },
    };
  }
  const lock = present(dir, ['npm-shrinkwrap.json', 'package-lock.json']);
  if (!lock.length && !declaresDependencies(join(dir, 'package.json'))) return undefined;
  return {
    ...base,
    ecosystem: 'npm',
    // Without a lockfile only package.json says what to install; `npm install` then writes no lockfile into the worktree.
    command: lock.length ? 'npm ci --no-audit --no-fund' : 'npm install --no-audit --no-fund --no-package-lock',
    updateCommand: lock.length ? 'npm install --no-audit --no-fund' : undefined,
    inputs: present(dir, ['package.json', ...lock, '.npmrc']),
    hosts: [NPM_REGISTRY],
    setupEnv: { npm_config_cache: `${DOWNLOADS_INSIDE}/npm`, npm_config_update_notifier: 'false' },
  };
}

