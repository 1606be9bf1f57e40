import { describe, expect, it } from 'vitest';
import { pythonTest } from '../../../../host/dependencies/python/python-test';
import { folderWith } from '../../../support/projects/real-projects';

/** A folder holding `files`. */
const project = (files: Record<string, string>) => folderWith(files, 'dex-python-test-');

const SETUP_PY = { 'setup.py': 'from setuptools import setup\nsetup(name="wire")\n', 'wire/__init__.py': '' };
const UNITTEST = 'import unittest\n\nclass T(unittest.TestCase):\n    def test_x(self):\n        pass\n';
const PYTEST = 'def test_x():\n    pass\n';
/** A venv setup made, with the pytest plugins named. */
const venv = (...plugins: string[]) => ({ '.venv/bin/python': '', ...Object.fromEntries(plugins.map((p) => [`.venv/lib/python3.11/site-packages/${p}/__init__.py`, ''])) });

describe("Python's test command: where owners put their tests, run as they run them", () => {
  it("finds tests inside the package, pytest named only in a requirements file tox's deps read (h11's shape)", () => {
    const h11 = { ...SETUP_PY, 'wire/tests/__init__.py': '', 'wire/tests/test_wire.py': PYTEST, 'test-requirements.txt': 'pytest\npytest-cov\n' };
    // No tox commands: pytest named in test-requirements.txt, tests in wire/tests.
    expect(pythonTest(project(h11))).toBe('python3 -m pytest -q');
    // tox's commands are the owner's own: their paths and a plugin's options kept where the venv has the plugin.
    const tox = '[testenv]\ndeps = -r{toxinidir}/test-requirements.txt\ncommands = pytest --cov=wire --cov-config=.coveragerc {posargs} wire\n';
    expect(pythonTest(project({ ...h11, 'tox.ini': tox, ...venv('pytest_cov') }))).toBe('python -m pytest -q --cov=wire --cov-config=.coveragerc wire');
    // Without pytest-cov in the venv, its options are left out (pytest would stop at them), with their values.
    const spaced = '[testenv]\ndeps = pytest\ncommands =\n    pip list\n    pytest -v --cov wire --cov-report term -n 4 -p no:cacheprovider {posargs:wire/tests}\n';
    expect(pythonTest(project({ ...h11, 'tox.ini': spaced, ...venv() }))).toBe('python -m pytest -q wire -p no:cacheprovider wire/tests');
  });

  it("resolves tox's substitutions as the worktree sees them, and leaves out a word naming tox's own folders (boltons' shape)", () => {
    const tox = '[testenv]\nchangedir = .tox\ncommands = pytest --doctest-modules {env_site_packages_dir}/wire {tox_root}/tests --basetemp={envtmpdir} {posargs}\n';
    expect(pythonTest(project({ ...SETUP_PY, 'tests/test_a.py': PYTEST, 'tox.ini': tox }))).toBe('python3 -m pytest -q --doctest-modules wire tests');
    // {envpython} -m unittest, its -v left out; factor conditions and tox's ignore-exit dash read through.
    const unit = '[testenv]\ncommands =\n    py38: - {envpython} -m unittest -v {posargs}\n';
    expect(pythonTest(project({ ...SETUP_PY, 'tests/__init__.py': '', 'tests/test_a.py': UNITTEST, 'tox.ini': unit }))).toBe('python3 -m unittest');
    // A test environment that changes into a folder of the worktree: its relative paths do not hold from the root.
    const moved = '[testenv]\nchangedir = tests\ncommands = pytest unit\n';
    expect(pythonTest(project({ ...SETUP_PY, 'tests/unit/test_a.py': PYTEST, 'tox.ini': moved }))).toBe('python3 -m pytest -q');
    // tox in pyproject.toml, legacy and native.
    const legacy = '[project]\nname = "wire"\n\n[tool.tox]\nlegacy_tox_ini = """\n[testenv]\ncommands = py.test {posargs} wire\n"""\n';
    expect(pythonTest(project({ 'pyproject.toml': legacy, 'wire/__init__.py': '', 'wire/tests/test_a.py': PYTEST }))).toBe('python3 -m pytest -q wire');
    const native = '[project]\nname = "wire"\n\n[tool.tox.env_run_base]\ndeps = ["pytest"]\ncommands = [["pytest", "{posargs}", "tests"]]\n';
    expect(pythonTest(project({ 'pyproject.toml': native, 'tests/test_a.py': PYTEST }))).toBe('python3 -m pytest -q tests');
  });

  it("reads the CI workflow's test step when tox says nothing: GitHub's and the shell's variables and runners read through", () => {
    const ci = (run: string) => ({ '.github/workflows/ci.yml': `on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: pip install -e .\n${run}` });
    const base = { ...SETUP_PY, 'tests/test_a.py': PYTEST };
    expect(pythonTest(project({ ...base, ...ci('      - name: Test\n        run: |\n          python -m pytest -x tests ${{ matrix.args }} --junitxml=report.xml\n') }))).toBe('python3 -m pytest -q -x tests');
    expect(pythonTest(project({ ...base, ...ci('      - run: PYTHONWARNINGS=error uv run --frozen coverage run --branch -m pytest tests/ && coverage report\n') }))).toBe('python3 -m pytest -q tests/');
    expect(pythonTest(project({ ...base, 'tests/__init__.py': '', ...ci('      - run: python -W error -m unittest discover -s tests\n') }))).toBe('python3 -m unittest discover -s tests');
    // A step in another folder, or a script that changes into one, is not the root's test run.
    const elsewhere = ci('      - run: pytest docs\n        working-directory: docs\n      - run: |\n          cd bench\n          pytest\n');
    expect(pythonTest(project({ ...base, ...elsewhere }))).toBe('python3 -m pytest -q');
  });

  it('runs a suite written for unittest, with pytest nowhere, as `python -m unittest` (tomli, simplejson, jsonschema)', () => {
    // Tests in a package (every folder has __init__.py): unittest's discovery from the root reaches them.
    expect(pythonTest(project({ ...SETUP_PY, 'wire/tests/__init__.py': '', 'wire/tests/test_wire.py': UNITTEST, ...venv() }))).toBe('python -m unittest');
    expect(pythonTest(project({ 'pyproject.toml': '[project]\nname = "t"\n', 'tests/__init__.py': '', 'tests/test_a.py': UNITTEST }))).toBe('python3 -m unittest');
    // A tests/ that is not a package is searched itself.
    expect(pythonTest(project({ 'pyproject.toml': '[project]\nname = "t"\n', 'tests/test_a.py': UNITTEST }))).toBe('python3 -m unittest discover -s tests');
    // src layout: the package's own tests.
    expect(pythonTest(project({ 'pyproject.toml': '', 'src/wire/__init__.py': '', 'src/wire/tests/test_a.py': UNITTEST }))).toBe('python3 -m unittest discover -s src');
  });

  it('is pytest where anything says pytest: its name in tox, nox or any requirements file, a conftest, a pytest-style module', () => {
    const unittestTests = { ...SETUP_PY, 'wire/tests/__init__.py': '', 'wire/tests/test_wire.py': UNITTEST };
    expect(pythonTest(project({ ...unittestTests, 'tox.ini': '[testenv]\ndeps = pytest\ncommands = make test\n' }))).toBe('python3 -m pytest -q');
    expect(pythonTest(project({ ...unittestTests, 'noxfile.py': 'import nox\n@nox.session\ndef tests(session):\n    session.install("pytest")\n' }))).toBe('python3 -m pytest -q');
    expect(pythonTest(project({ ...unittestTests, 'requirements/test.txt': 'pytest>=8\n' }))).toBe('python3 -m pytest -q');
    expect(pythonTest(project({ ...unittestTests, 'wire/tests/conftest.py': '' }))).toBe('python3 -m pytest -q');
    expect(pythonTest(project({ ...unittestTests, 'wire/tests/test_plain.py': PYTEST }))).toBe('python3 -m pytest -q');
    // No tests and nothing of pytest's: none.
    expect(pythonTest(project({ ...SETUP_PY }))).toBeUndefined();
  });
});
