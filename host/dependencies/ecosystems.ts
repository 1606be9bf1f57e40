import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Where inside the sandbox setup finds its download caches (npm's, pip's, corepack's), bound from the host. */
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
}

const NPM_REGISTRY = 'registry.npmjs.org';
const PYPI = ['pypi.org', 'files.pythonhosted.org'];
const NODE_OUTPUTS = ['node_modules'];
const NODE_BIN = ['node_modules/.bin'];
const NODE_TOOLCHAIN = ['node --version', 'npm --version'];
/** corepack fetches pnpm and yarn themselves from the npm registry, into the download cache. */
const COREPACK_ENV = { COREPACK_HOME: `${DOWNLOADS_INSIDE}/corepack`, COREPACK_ENABLE_DOWNLOAD_PROMPT: '0' };

const present = (dir: string, names: string[]): string[] => names.filter((name) => existsSync(join(dir, name)));

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

function nodePlan(dir: string): EcosystemPlan | undefined {
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

/** Prints the requirements `pyproject.toml` names (its dependencies and its dev/test extras), one a line. */
const PYPROJECT_REQUIREMENTS = [
  'import tomllib',
  'p = tomllib.load(open("pyproject.toml", "rb")).get("project", {})',
  'extras = p.get("optional-dependencies", {})',
  'print("\\n".join(p.get("dependencies", []) + [r for k in ("dev", "test", "tests") for r in extras.get(k, [])]))',
].join('; ');

function pythonPlan(dir: string): EcosystemPlan | undefined {
  const requirements = readdirSync(dir).filter((name) => /^requirements.*\.txt$/.test(name)).sort();
  const base = {
    ecosystem: 'python',
    outputs: ['.venv'],
    hosts: PYPI,
    toolchain: ['python3 --version'],
    setupEnv: { PIP_CACHE_DIR: `${DOWNLOADS_INSIDE}/pip`, PIP_DISABLE_PIP_VERSION_CHECK: '1', UV_CACHE_DIR: `${DOWNLOADS_INSIDE}/uv` },
    commandEnv: { VIRTUAL_ENV: '{worktree}/.venv' },
    binDirs: ['.venv/bin'],
    toolchainPaths: [],
  };
  const tool = (name: string) => `python3 -m venv /tmp/dex-${name} && /tmp/dex-${name}/bin/pip install -q ${name}`;
  const uvSync = `${tool('uv')} && UV_PROJECT_ENVIRONMENT=.venv UV_PYTHON_DOWNLOADS=never /tmp/dex-uv/bin/uv sync`;
  if (existsSync(join(dir, 'uv.lock'))) {
    return {
      ...base,
      command: `${uvSync} --frozen --no-install-project`,
      updateCommand: `${uvSync} --no-install-project`,
      inputs: present(dir, ['pyproject.toml', 'uv.lock']),
    };
  }
  if (existsSync(join(dir, 'poetry.lock'))) {
    return {
      ...base,
      command: `${tool('poetry')} && POETRY_VIRTUALENVS_IN_PROJECT=true /tmp/dex-poetry/bin/poetry install --no-root --no-interaction`,
      inputs: present(dir, ['pyproject.toml', 'poetry.lock']),
    };
  }
  if (requirements.length) {
    return { ...base, command: `python3 -m venv .venv && .venv/bin/pip install -q ${requirements.map((r) => `-r ${r}`).join(' ')}`, inputs: requirements };
  }
  if (existsSync(join(dir, 'pyproject.toml'))) {
    const list = '/tmp/dex-requirements.txt';
    return {
      ...base,
      command: `python3 -m venv .venv && .venv/bin/python -c '${PYPROJECT_REQUIREMENTS}' > ${list} && .venv/bin/pip install -q -r ${list}`,
      inputs: ['pyproject.toml'],
    };
  }
  return undefined;
}

function goPlan(dir: string, goRoot: string | undefined): EcosystemPlan | undefined {
  if (!existsSync(join(dir, 'go.sum'))) return undefined;
  // Modules and build cache live in the worktree's .dex folder (go ignores folders starting with a dot); no network after setup.
  const env = { GOMODCACHE: '{worktree}/.dex/gomod', GOCACHE: '{worktree}/.dex/gocache', GOFLAGS: '-modcacherw', GOTOOLCHAIN: 'local' };
  return {
    ecosystem: 'go',
    command: 'go mod download',
    inputs: present(dir, ['go.mod', 'go.sum']),
    outputs: ['.dex/gomod'],
    scratch: ['.dex/gocache'],
    hosts: ['proxy.golang.org', 'sum.golang.org', 'storage.googleapis.com'],
    toolchain: ['go version'],
    setupEnv: env,
    commandEnv: { ...env, GOPROXY: 'off' },
    binDirs: goRoot ? [join(goRoot, 'bin')] : [],
    toolchainPaths: goRoot ? [goRoot] : [],
  };
}

function rustPlan(dir: string, cargoHome: string | undefined, rustupHome: string | undefined): EcosystemPlan | undefined {
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

/** Where the host's Go and Rust toolchains live, when they are outside the system folders the sandbox mounts. */
export interface HostToolchains {
  goRoot?: string;
  cargoHome?: string;
  rustupHome?: string;
}

/**
 * The ecosystems the repository at `dir` uses, from its lockfiles and manifests: one Node
 * plan (pnpm, yarn or npm, by lockfile), one Python plan (uv, poetry, requirements files or
 * pyproject.toml), Go and Rust. Empty for a repository without dependencies.
 */
export function detectEcosystems(dir: string, toolchains: HostToolchains = {}): EcosystemPlan[] {
  return [nodePlan(dir), pythonPlan(dir), goPlan(dir, toolchains.goRoot), rustPlan(dir, toolchains.cargoHome, toolchains.rustupHome)].filter(
    (plan): plan is EcosystemPlan => plan !== undefined,
  );
}
