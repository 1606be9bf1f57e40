import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pythonPlan, SETUP_SCRIPT } from '../../../host/dependencies/python/python-plan';
import { ownerVenvConstraints, withOwnerVersions } from '../../../host/dependencies/python/python-owner-versions';
import { relocateVenv } from '../../../host/dependencies/python/relocate-venv';
import { folderWith } from '../../support/projects/real-projects';

/** A folder holding `files`. */
const folder = (files: Record<string, string>) => folderWith(files, 'dex-pyshape-');

/** What python-setup.py would run for the project `files` (its --dry-run, by this host's python3), and the plan's mode. */
function shape(files: Record<string, string>, env: Record<string, string> = {}): { mode: string; name: string | null; package: boolean; commands: string[][] } {
  const dir = folder(files);
  const plan = pythonPlan(dir)!;
  const mode = plan.command.split('"$DEX_PYTHON_SETUP" ').at(-1)!; // the project's run, after a tool's venv (uv's)
  const out = execFileSync('python3', ['-c', SETUP_SCRIPT, mode, '--dry-run'], { cwd: dir, encoding: 'utf8', env: { ...process.env, ...env } });
  return { mode, ...(JSON.parse(out.trim().split('\n').at(-1)!) as { name: string | null; package: boolean; commands: string[][] }) };
}

const PIP = ['.venv/bin/python', '-m', 'pip', 'install', '-q'];
const VENV = ['python3', '-m', 'venv', '.venv'];
const HATCH = '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n\n';
const TEST = { 'tests/test_x.py': 'def test_x():\n    pass\n' };

describe('python-setup.py: what each project shape installs', () => {
  it('src layout, pytest only in a dependency group that includes another: the project editable, the group resolved', () => {
    const pyproject = `${HATCH}[project]\nname = "Tally_Up"\nversion = "0.1.0"\ndependencies = ["attrs"]\n\n[dependency-groups]\ntest = ["pytest>=8", {include-group = "cov"}]\ncov = ["coverage"]\ndocs = ["sphinx"]\n`;
    const got = shape({ 'pyproject.toml': pyproject, 'src/tally_up/__init__.py': '', ...TEST });
    expect(got).toMatchObject({ mode: 'pip', name: 'tally-up', package: true });
    expect(got.commands).toEqual([VENV, [...PIP, '--use-pep517', '-e', '.', 'pytest>=8', 'coverage'], [...PIP, 'pytest']]);
  });

  it('an extra naming the project itself (`dev = ["pkg[tests]"]`): one install of the worktree with both extras, no requirement string for the index', () => {
    const pyproject = `${HATCH}[project]\nname = "humanize"\nversion = "4.9.0"\n\n[project.optional-dependencies]\ntests = ["pytest"]\ndev = ["humanize[tests]", "ruff"]\ndocs = ["mkdocs"]\n\n[dependency-groups]\ndev = ["humanize[tests]"]\n`;
    const got = shape({ 'pyproject.toml': pyproject });
    expect(got.commands).toEqual([VENV, [...PIP, '--use-pep517', '-e', '.[tests,dev]']]);
  });

  it('a flat setuptools project tested by tox: its test env\'s deps and extras, conditional and substituted lines left out', () => {
    const tox = '[tox]\nenvlist = py311\n\n[testenv]\ndeps =\n    pytest\n    py38: mock\n    -rrequirements-test.txt\n    {[base]deps}\nextras = testing\ncommands = pytest\n';
    const pyproject = '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n\n[project]\nname = "money"\nversion = "1.0"\n\n[project.optional-dependencies]\ntesting = ["hypothesis"]\n';
    const got = shape({ 'pyproject.toml': pyproject, 'tox.ini': tox, 'requirements-test.txt': 'freezegun\n', 'money.py': '' });
    // tox runs pytest: ensured even where no requirement brings it (the dry run cannot look, so it lists the check's install).
    expect(got.commands).toEqual([VENV, [...PIP, '--use-pep517', '-e', '.[testing]', '-r', 'requirements-test.txt', 'pytest'], [...PIP, 'pytest']]);
  });

  it("a package whose tests live inside it, pytest from a requirements file tox's deps name through {toxinidir}", () => {
    const tox = '[testenv]\ndeps = -r{toxinidir}/requirements/ci.txt\ncommands = python -m unittest\n';
    const files = { 'setup.py': 'from setuptools import setup\nsetup(name="wire")\n', 'wire/__init__.py': '', 'wire/tests/__init__.py': '', 'wire/tests/test_wire.py': 'def test_x():\n    pass\n' };
    const got = shape({ ...files, 'tox.ini': tox, 'requirements/ci.txt': 'pytest\n' });
    expect(got.commands).toEqual([VENV, [...PIP, '--use-pep517', '-e', '.[dev,test,testing,tests]', '-r', 'requirements/ci.txt'], [...PIP, 'pytest']]);
    // tox's settings in setup.cfg (`[tox:tox]`) are read the same; a package's tests/ alone make pytest ensured.
    const cfg = '[metadata]\nname = wire\n\n[tox:tox]\nenvlist = py311\n\n[testenv]\ndeps = -r {tox_root}/requirements/ci.txt\n';
    expect(shape({ ...files, 'setup.cfg': cfg, 'requirements/ci.txt': '' }).commands).toEqual([VENV, [...PIP, '--use-pep517', '-e', '.[dev,test,testing,tests]', '-r', 'requirements/ci.txt'], [...PIP, 'pytest']]);
  });

  it('[tool.tox] in pyproject.toml, and a noxfile\'s test session', () => {
    const pyproject = `${HATCH}[project]\nname = "p"\nversion = "1"\n\n[tool.tox.env_run_base]\ndeps = ["pytest-mock"]\n`;
    const nox = 'import nox\n\n@nox.session\ndef tests(session):\n    session.install(".[fast]", "pytest")\n    session.run("pytest")\n\n@nox.session\ndef lint(session):\n    session.install("ruff")\n';
    const got = shape({ 'pyproject.toml': pyproject, 'noxfile.py': nox });
    expect(got.commands).toEqual([VENV, [...PIP, '--use-pep517', '-e', '.[fast]', 'pytest-mock', 'pytest'], [...PIP, 'pytest']]);
  });

  it('requirements files of an application that is no package: the files, the test/dev lists under other names, no editable install', () => {
    const got = shape({ 'requirements.txt': 'attrs\n', 'requirements-dev.txt': 'pytest\n', 'test-requirements.txt': 'mock\n', 'app.py': '', 'conftest.py': '' });
    expect(got).toMatchObject({ package: false });
    expect(got.commands).toEqual([VENV, [...PIP, '-r', 'requirements-dev.txt', '-r', 'requirements.txt', '-r', 'test-requirements.txt'], [...PIP, 'pytest']]);
    expect(pythonPlan(folder({ 'requirements.txt': '', 'test-requirements.txt': '' }))!.inputs).toEqual(['requirements.txt', 'test-requirements.txt']);
  });

  it('[project] without a build backend is no package: its dependencies and test extras as lists, the extras it asks of itself expanded', () => {
    const pyproject = '[project]\nname = "app"\nversion = "0"\ndependencies = ["attrs"]\n\n[project.optional-dependencies]\ntest = ["pytest"]\ndev = ["app[test]", "ruff"]\n';
    const got = shape({ 'pyproject.toml': pyproject });
    expect(got).toMatchObject({ package: false });
    expect(got.commands).toEqual([VENV, [...PIP, 'attrs', 'pytest', 'ruff']]);
  });

  it('setup.py alone: the project editable with every usual test extra (pip only warns about one it lacks)', () => {
    const got = shape({ 'setup.py': 'from setuptools import setup\nsetup(name="old")\n', ...TEST });
    expect(got.commands).toEqual([VENV, [...PIP, '--use-pep517', '-e', '.[dev,test,testing,tests]'], [...PIP, 'pytest']]);
  });

  it('uv.lock: uv sync installs the project (editable) and the dev group; the test extras and other test groups by name', () => {
    const pyproject = `${HATCH}[project]\nname = "t"\nversion = "1"\n\n[project.optional-dependencies]\ntests = ["pytest"]\ngpu = ["torch"]\n\n[dependency-groups]\ndev = ["ruff"]\ntest = ["pytest"]\n`;
    const got = shape({ 'pyproject.toml': pyproject, 'uv.lock': '' });
    expect(got.mode).toBe('uv');
    expect(got.commands).toEqual([['uv', 'sync', '--frozen', '--extra', 'tests', '--group', 'test']]);
  });

  it('poetry.lock read into pip as poetry would install it: main, groups not optional, the optional test group, a test extra\'s package; none twice resolved', () => {
    const pyproject = '[tool.poetry]\nname = "t"\nversion = "1"\n\n[tool.poetry.group.test]\noptional = true\n\n[tool.poetry.group.docs]\noptional = true\n\n[tool.poetry.group.lint.dependencies]\nruff = "*"\n\n[build-system]\nrequires = ["poetry-core"]\nbuild-backend = "poetry.core.masonry.api"\n';
    const entry = (name: string, groups: string[], more = '') => `[[package]]\nname = "${name}"\nversion = "1.0"\noptional = ${more.includes('optional') ? 'true' : 'false'}\ngroups = ${JSON.stringify(groups)}\n${more.replace('optional', '')}\n`;
    const lock = [entry('attrs', ['main']), entry('pytest', ['test'], 'markers = "python_version >= \\"3.8\\""'), entry('sphinx', ['docs']), entry('ruff', ['lint']), entry('hypothesis', ['main'], 'optional'), entry('numpy', ['main'], 'optional')].join('\n');
    const got = shape({ 'pyproject.toml': pyproject, 'poetry.lock': `${lock}\n[extras]\ntest = ["hypothesis"]\nfast = ["numpy"]\n` });
    expect(got.mode).toBe('poetry');
    expect(got.commands).toEqual([VENV, [...PIP, '--no-deps', 'attrs==1.0', 'pytest==1.0 ; python_version >= "3.8"', 'ruff==1.0', 'hypothesis==1.0'], [...PIP, '--no-deps', '--use-pep517', '-e', '.']]);
  });

  it('pdm.lock: every locked package at its locked version (markers kept), then the project editable, with no second resolve', () => {
    const lock = '[metadata]\ngroups = ["default", "test"]\n\n[[package]]\nname = "attrs"\nversion = "24.2.0"\n\n[[package]]\nname = "colorama"\nversion = "0.4.6"\nmarker = "sys_platform == \\"win32\\""\n';
    const got = shape({ 'pyproject.toml': `${HATCH}[project]\nname = "t"\nversion = "1"\n`, 'pdm.lock': lock });
    expect(got.mode).toBe('pdm');
    expect(got.commands).toEqual([VENV, [...PIP, '--no-deps', 'attrs==24.2.0', 'colorama==0.4.6 ; sys_platform == "win32"'], [...PIP, '--no-deps', '--use-pep517', '-e', '.']]);
  });

  it('the plan keys the cache by every file the script reads, and by the script itself', () => {
    const plan = pythonPlan(folder({ 'pyproject.toml': '', 'setup.cfg': '', 'tox.ini': '', 'uv.lock': '' }))!;
    expect(plan.inputs).toEqual(['pyproject.toml', 'setup.cfg', 'tox.ini', 'uv.lock']);
    expect(plan.toolchain.join('\n')).toMatch(/python-setup\.py [0-9a-f]{12}/);
    const parts = ['python-setup.py', 'python-setup-install.py'].map((name) => readFileSync(join(__dirname, '..', '..', '..', 'host', 'dependencies', 'python', name), 'utf8'));
    expect(plan.setupEnv.DEX_PYTHON_SETUP).toBe(parts.join(''));
    expect(pythonPlan(folder({ 'setup.cfg': '[flake8]\n' }))).toBeUndefined();
  });
});

describe("the owner's venv: its versions as constraints of an unlocked install", () => {
  const owner = () =>
    folder({
      '.venv/pyvenv.cfg': 'home = /usr/bin\n',
      '.venv/lib/python3.11/site-packages/attrs-24.2.0.dist-info/METADATA': '',
      '.venv/lib/python3.11/site-packages/typing_extensions-4.12.2.dist-info/METADATA': '',
      '.venv/lib/python3.11/site-packages/pip-24.0.dist-info/METADATA': '',
      '.venv/lib/python3.11/site-packages/tally-0.1.0.dist-info/direct_url.json': '{"url": "file:///home/me/tally", "dir_info": {"editable": true}}',
    });

  it('reads what was installed from the index, not the packaging tools nor the project installed from its folder', () => {
    expect(ownerVenvConstraints(owner())).toBe('attrs==24.2.0\ntyping_extensions==4.12.2');
    expect(ownerVenvConstraints(folder({ 'README.md': '' }))).toBe('');
  });

  it('constrains the pip install of a project without a lockfile, the project\'s own name left out; a lockfile\'s plan is untouched', () => {
    const pip = withOwnerVersions(pythonPlan(folder({ 'pyproject.toml': '' }))!, owner());
    expect(pip.setupEnv.DEX_PYTHON_CONSTRAINTS).toBe('attrs==24.2.0\ntyping_extensions==4.12.2');
    const uv = pythonPlan(folder({ 'pyproject.toml': '', 'uv.lock': '' }))!;
    expect(withOwnerVersions(uv, owner())).toBe(uv);
    const got = shape({ 'pyproject.toml': `${HATCH}[project]\nname = "attrs"\nversion = "1"\ndependencies = ["six"]\n` }, { DEX_PYTHON_CONSTRAINTS: 'attrs==24.2.0\nsix==1.16.0' });
    expect(got.commands).toEqual([VENV, [...PIP, '-c', '/tmp/dex-owner-constraints.txt', '--use-pep517', '-e', '.']]);
    expect(readFileSync('/tmp/dex-owner-constraints.txt', 'utf8')).toBe('six==1.16.0\n');
  });
});

describe('relocateVenv: a venv with an editable install, restored into another worktree', () => {
  it('points the .pth, the finder, direct_url.json, RECORD and the scripts at the new worktree, and no path merely sharing a prefix', async () => {
    const site = 'lib/python3.11/site-packages';
    const venv = folder({
      'bin/pkg-cli': '#!/wt/task-1/.venv/bin/python\nimport sys\n',
      'pyvenv.cfg': 'command = /usr/bin/python3 -m venv /wt/task-1/.venv\n',
      [`${site}/_pkg.pth`]: '/wt/task-1/src\n',
      [`${site}/__editable__.flat-1.0.pth`]: 'import __editable___flat_1_0_finder; __editable___flat_1_0_finder.install()\n',
      [`${site}/__editable___flat_1_0_finder.py`]: "MAPPING = {'flat': '/wt/task-1/flat', 'other': '/wt/task-10/flat'}\n",
      [`${site}/__pycache__/__editable___flat_1_0_finder.cpython-311.pyc`]: 'stale',
      [`${site}/pkg-1.0.dist-info/direct_url.json`]: '{"dir_info": {"editable": true}, "url": "file:///wt/task-1"}',
      [`${site}/pkg-1.0.dist-info/RECORD`]: '/wt/task-1/src/pkg/__init__.py,,\n',
      [`${site}/attrs/__init__.py`]: '# /wt/task-1 mentioned in a package: not a file dex reads\n',
    });
    await relocateVenv(venv, '/wt/task-1', '/wt/task-2');
    const read = (path: string) => readFileSync(join(venv, path), 'utf8');
    expect(read('bin/pkg-cli')).toBe('#!/wt/task-2/.venv/bin/python\nimport sys\n');
    expect(read('pyvenv.cfg')).toContain('-m venv /wt/task-2/.venv');
    expect(read(`${site}/_pkg.pth`)).toBe('/wt/task-2/src\n');
    expect(read(`${site}/__editable___flat_1_0_finder.py`)).toBe("MAPPING = {'flat': '/wt/task-2/flat', 'other': '/wt/task-10/flat'}\n");
    expect(existsSync(join(venv, `${site}/__pycache__/__editable___flat_1_0_finder.cpython-311.pyc`))).toBe(false);
    expect(JSON.parse(read(`${site}/pkg-1.0.dist-info/direct_url.json`))).toEqual({ dir_info: { editable: true }, url: 'file:///wt/task-2' });
    expect(read(`${site}/pkg-1.0.dist-info/RECORD`)).toBe('/wt/task-2/src/pkg/__init__.py,,\n');
    expect(read(`${site}/attrs/__init__.py`)).toContain('/wt/task-1 mentioned');
  });
});
