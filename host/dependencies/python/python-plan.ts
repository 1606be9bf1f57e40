import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DOWNLOADS_INSIDE, present, type EcosystemPlan } from '../ecosystem-plan';

const PYPI = ['pypi.org', 'files.pythonhosted.org'];

/**
 * What fills the venv (docs/real-repositories.md#python-projects): python-setup.py, beside this
 * file, read once and handed to the sandbox's python3 in the environment, so the sandbox needs no
 * path of dex's own. Its hash keys the cache, so a new version of it installs afresh. It is kept
 * in two files (what the project asks for, then how it is installed) and run as one script.
 */
export const SETUP_SCRIPT = ['python-setup.py', 'python-setup-install.py'].map((name) => readFileSync(join(__dirname, name), 'utf8')).join('');
const SETUP_SCRIPT_ID = createHash('sha256').update(SETUP_SCRIPT).digest('hex').slice(0, 12);
const runSetup = (mode: string) => `python3 -c "$DEX_PYTHON_SETUP" ${mode}`;

/** Files whose content decides what python-setup.py installs, besides the lockfiles. */
const MANIFESTS = ['pyproject.toml', 'setup.py', 'setup.cfg', 'tox.ini', 'noxfile.py'];

/** The requirements files python-setup.py reads: every top-level requirements*.txt and the test/dev lists under other names. */
function requirementFiles(dir: string): string[] {
  const top = readdirSync(dir).filter((name) => /^requirements.*\.txt$/.test(name) || ['test-requirements.txt', 'dev-requirements.txt'].includes(name));
  const nested = existsSync(join(dir, 'requirements')) ? readdirSync(join(dir, 'requirements')).filter((name) => /^(test|dev).*\.txt$/.test(name)).map((name) => `requirements/${name}`) : [];
  return [...top.sort(), ...nested.sort()];
}

/** A throwaway venv in the sandbox's /tmp holding one tool from PyPI (uv): never part of the project's venv. */
const tool = (name: string) => `${runSetup(`venv /tmp/dex-${name}`)} && /tmp/dex-${name}/bin/pip install -q ${name}`;

/** The Python plan of `dir`: uv, poetry, pdm, requirements files, pyproject.toml or setup.py (docs/real-repositories.md#what-is-detected). */
export function pythonPlan(dir: string): EcosystemPlan | undefined {
  const requirements = requirementFiles(dir);
  const manifests = present(dir, MANIFESTS);
  const base = {
    ecosystem: 'python',
    outputs: ['.venv'],
    hosts: PYPI,
    toolchain: ['python3 --version', `echo python-setup.py ${SETUP_SCRIPT_ID}`],
    setupEnv: {
      DEX_PYTHON_SETUP: SETUP_SCRIPT,
      PIP_CACHE_DIR: `${DOWNLOADS_INSIDE}/pip`,
      DEX_VENV_SEEDS: `${DOWNLOADS_INSIDE}/venv-seeds`,
      PIP_DISABLE_PIP_VERSION_CHECK: '1',
      UV_CACHE_DIR: `${DOWNLOADS_INSIDE}/uv`,
      UV_PROJECT_ENVIRONMENT: '.venv',
      UV_PYTHON_DOWNLOADS: 'never',
      // uv trusts only its bundled roots unless told to read the system's, which name a TLS-inspecting proxy's CA where there is one.
      UV_SYSTEM_CERTS: '1',
      // Files copied out of uv's cache, never hard links to it: a task writing into its venv must not reach the cache.
      UV_LINK_MODE: 'copy',
      DEX_UV: '/tmp/dex-uv/bin/uv',
    },
    commandEnv: { VIRTUAL_ENV: '{worktree}/.venv' },
    binDirs: ['.venv/bin'],
    toolchainPaths: [],
  };
  if (existsSync(join(dir, 'uv.lock'))) {
    return {
      ...base,
      command: `${tool('uv')} && ${runSetup('uv')}`,
      updateCommand: `${tool('uv')} && ${runSetup('uv --update')}`,
      inputs: [...manifests, 'uv.lock'],
    };
  }
  if (existsSync(join(dir, 'poetry.lock'))) {
    return { ...base, command: runSetup('poetry'), inputs: [...manifests, 'poetry.lock'] };
  }
  if (existsSync(join(dir, 'pdm.lock'))) {
    return { ...base, command: runSetup('pdm'), inputs: [...manifests, 'pdm.lock'] };
  }
  if (requirements.length || manifests.some((name) => ['pyproject.toml', 'setup.py'].includes(name))) {
    return { ...base, command: runSetup('pip'), inputs: [...manifests, ...requirements] };
  }
  return undefined;
}
