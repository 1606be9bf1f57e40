import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DOWNLOADS_INSIDE, present, type EcosystemPlan } from './ecosystem-plan';

const PYPI = ['pypi.org', 'files.pythonhosted.org'];

/** Prints the requirements `pyproject.toml` names (its dependencies and its dev/test extras), one a line. */
const PYPROJECT_REQUIREMENTS = [
  'import tomllib',
  'p = tomllib.load(open("pyproject.toml", "rb")).get("project", {})',
  'extras = p.get("optional-dependencies", {})',
  'print("\\n".join(p.get("dependencies", []) + [r for k in ("dev", "test", "tests") for r in extras.get(k, [])]))',
].join('; ');

/** The Python plan of `dir`: uv, poetry, requirements files or pyproject.toml (docs/real-repositories.md#what-is-detected). */
export function pythonPlan(dir: string): EcosystemPlan | undefined {
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

