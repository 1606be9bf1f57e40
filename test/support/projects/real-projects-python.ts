/**
 * Small real Python projects for test/integration/setup/python-projects.integration.test.ts
 * (docs/real-repositories.md#python-projects): each is a package whose tests import it, so they
 * pass only when the venv's copy of the package is the worktree's own; dependencies come from the
 * real PyPI, and uv's lockfile is made at test time by real uv.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commitProject, type RealProject } from './real-projects';

const GITIGNORE = '.venv/\n__pycache__/\n.pytest_cache/\n*.egg-info/\n';
const SETUPTOOLS = '[build-system]\nrequires = ["setuptools>=64"]\nbuild-backend = "setuptools.build_meta"\n\n';

/** (a) A src-layout setuptools package; pytest is only in the `test` dependency group (PEP 735). `Shelf.total` drops the last book. */
export function srcLayoutProject(): RealProject {
  const repo = commitProject('shelf', {
    '.gitignore': GITIGNORE,
    'pyproject.toml': `${SETUPTOOLS}[project]\nname = "shelf"\nversion = "0.1.0"\ndependencies = ["attrs"]\n\n[dependency-groups]\ntest = ["pytest"]\n`,
    'src/shelf/__init__.py': 'import attrs\n\n\n@attrs.define\nclass Shelf:\n    pages: list\n\n    def total(self):\n        return sum(self.pages[:-1])\n',
    'tests/test_shelf.py': 'from shelf import Shelf\n\n\ndef test_total():\n    assert Shelf([10, 20]).total() == 30\n',
  });
  return { repo, fix: { path: 'src/shelf/__init__.py', old_string: 'self.pages[:-1]', new_string: 'self.pages' } };
}

let uv: string | undefined;

/** uv from PyPI in a venv of its own, installed once per process: the developer's uv that wrote the lockfile. */
function hostUv(): string {
  if (!uv) {
    const venv = join(mkdtempSync(join(tmpdir(), 'dex-uv-tool-')), 'venv');
    execFileSync('python3', ['-m', 'venv', venv], { stdio: 'pipe' });
    execFileSync(join(venv, 'bin', 'pip'), ['install', '-q', 'uv'], { stdio: 'pipe' });
    uv = join(venv, 'bin', 'uv');
  }
  return uv;
}

/** (b) A uv project (flit backend, src layout) whose uv.lock real uv writes from PyPI; pytest in the `dev` group. `tally` counts one too many. */
export function uvProject(): RealProject {
  const repo = commitProject(
    'tally',
    {
      '.gitignore': GITIGNORE,
      'pyproject.toml':
        '[build-system]\nrequires = ["flit_core>=3.9"]\nbuild-backend = "flit_core.buildapi"\n\n[project]\nname = "tally"\nversion = "0.1.0"\ndescription = "Counts"\nrequires-python = ">=3.9"\ndependencies = ["attrs"]\n\n[dependency-groups]\ndev = ["pytest"]\n',
      'src/tally/__init__.py': '"""Counts."""\n\n\ndef tally(items):\n    return len(items) + 1\n',
      'tests/test_tally.py': 'from tally import tally\n\n\ndef test_tally():\n    assert tally(["a", "b"]) == 2\n',
    },
    (dir) => {
      execFileSync(hostUv(), ['lock', '-q'], { cwd: dir, stdio: 'pipe', env: { ...process.env, UV_PYTHON_DOWNLOADS: 'never' } });
      if (!existsSync(join(dir, 'uv.lock'))) throw new Error('uv lock wrote no uv.lock');
    },
  );
  return { repo, fix: { path: 'src/tally/__init__.py', old_string: 'len(items) + 1', new_string: 'len(items)' } };
}

/**
 * (c) A flat-layout setuptools package whose setup is configured, not detected: a venv with the
 * project installed editable, cached (`setup.commands` + `cache: [.venv]`). setuptools installs a
 * flat layout through a finder module that maps `ledger` to the worktree's folder by absolute path.
 */
export function configuredEditableProject(): { repo: string; setup: { commands: string[]; cache: string[]; inputs: string[]; allowHosts: string[] } } {
  return {
    repo: ledgerProject(''),
    setup: {
      commands: ['python3 -m venv .venv', '.venv/bin/pip install -q -e . pytest'],
      cache: ['.venv'],
      inputs: ['pyproject.toml'],
      allowHosts: ['pypi.org', 'files.pythonhosted.org'],
    },
  };
}

/** The same package with pytest in a `test` extra and no setup written: the venv dex detects holds the editable install. */
export const detectedEditableProject = (): string => ledgerProject('\n[project.optional-dependencies]\ntest = ["pytest"]\n');

/** A flat-layout setuptools package `ledger` with a console script; `extra` is appended to its [project] table. */
function ledgerProject(extra: string): string {
  return commitProject('ledger', {
    '.gitignore': GITIGNORE,
    'pyproject.toml': `${SETUPTOOLS}[project]\nname = "ledger"\nversion = "0.1.0"\n${extra}\n[project.scripts]\nledger-balance = "ledger.core:main"\n\n[tool.setuptools]\npackages = ["ledger"]\n`,
    'ledger/__init__.py': '',
    'ledger/core.py': 'def balance(entries):\n    return sum(entries)\n\n\ndef main():\n    print(balance([1, 2]))\n',
    'tests/test_balance.py': 'from ledger.core import balance\n\n\ndef test_balance():\n    assert balance([1, 2, 3]) == 6\n',
  });
}

/**
 * (d) A src-layout hatchling package named and versioned like a real PyPI release (humanize
 * 4.9.0), whose dev extra names the package itself (`dev = ["humanize[tests]"]`). Its `intcomma`
 * drops the last group; the published one does not, so a venv holding the release passes unfixed.
 */
export function selfNamingProject(): RealProject {
  const repo = commitProject('humanize', {
    '.gitignore': GITIGNORE,
    'pyproject.toml':
      '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n\n[project]\nname = "humanize"\nversion = "4.9.0"\n\n[project.optional-dependencies]\ntests = ["pytest"]\ndev = ["humanize[tests]"]\n',
    'src/humanize/__init__.py':
      'def intcomma(n):\n    digits = str(n)\n    groups = []\n    while digits:\n        groups.insert(0, digits[-3:])\n        digits = digits[:-3]\n    return ",".join(groups[:-1])\n',
    'tests/test_intcomma.py': 'from humanize import intcomma\n\n\ndef test_intcomma():\n    assert intcomma(1234567) == "1,234,567"\n',
  });
  return { repo, fix: { path: 'src/humanize/__init__.py', old_string: 'return ",".join(groups[:-1])', new_string: 'return ",".join(groups)' } };
}
