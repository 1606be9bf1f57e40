import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { readText } from '../ecosystem-plan';
import { ownerTestRun } from './owner-test-run';
import { pytestArgs, shellWord, unittestArgs } from './test-args';

/** pytest's own configuration, in any of the files it reads it from. */
const PYTEST_CONFIG: [file: string, section: RegExp | undefined][] = [
  ['pytest.ini', undefined],
  ['conftest.py', undefined],
  ['pyproject.toml', /^\[tool\.pytest\.ini_options\]/m],
  ['setup.cfg', /^\[tool:pytest\]/m],
  ['tox.ini', /^\[pytest\]/m],
];
/** pytest (or a plugin of it, which needs it) named: `pytest`, `pytest==8.1`, `"pytest>=7"`, `pytest-cov`, poetry's `pytest = "^8"`, tox's `commands = pytest`, nox's `session.install("pytest")`. */
const PYTEST_NAMED = /(^|["'\s,[])(pytest|py\.test)\b/m;
/** What names a Python project's dependencies or test runs, besides the requirements files. */
const MANIFESTS = ['pyproject.toml', 'setup.cfg', 'setup.py', 'tox.ini', 'noxfile.py'];
/** A test module: `test_*.py` or `*_test.py`. */
const TEST_FILE = /^test_.*\.py$|_test\.py$/;

const namesIn = (dir: string): string[] => {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
};

/** The requirements files setup installs (python-setup.py's requirement_files): top-level ones, and the test/dev lists under other names. */
const requirementFiles = (dir: string): string[] => [
  ...namesIn(dir).filter((name) => /^requirements.*\.txt$|^(test|dev)-requirements\.txt$|^requirements_dev\.txt$/.test(name)),
  ...namesIn(join(dir, 'requirements')).filter((name) => /^(test|dev).*\.txt$/.test(name)).map((name) => `requirements/${name}`),
];

/** Test modules (relative paths) in `rel` of `dir` and its folders up to `depth` below. */
function testFilesIn(dir: string, rel: string, depth: number): string[] {
  let entries;
  try {
    entries = readdirSync(join(dir, rel), { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((e) => {
    const path = rel === '.' ? e.name : `${rel}/${e.name}`;
    if (e.isFile()) return TEST_FILE.test(e.name) ? [path] : [];
    return depth > 0 && e.isDirectory() && !e.name.startsWith('.') && e.name !== 'node_modules' ? testFilesIn(dir, path, depth - 1) : [];
  });
}

/**
 * The project's test modules where owners put them: at the root, in `tests/` or `test/`, and in
 * a package's own `tests/` or `test/` (`pkg/tests/`, `src/pkg/tests/`).
 */
function testFiles(dir: string): string[] {
  const packages = [...namesIn(dir), ...namesIn(join(dir, 'src')).map((name) => `src/${name}`)].filter((rel) => existsSync(join(dir, rel, '__init__.py')));
  const folders = ['tests', 'test', ...packages.flatMap((pkg) => [`${pkg}/tests`, `${pkg}/test`])];
  return [...testFilesIn(dir, '.', 0), ...folders.flatMap((rel) => testFilesIn(dir, rel, 2))];
}

/**
 * True when the test modules are written for unittest alone: one imports unittest, and none is
 * pytest's (imports pytest, has a top-level `def test_…` function, or sits beside a `conftest.py`).
 */
function writtenForUnittest(dir: string, files: string[]): boolean {
  const texts = files.map((f) => readText(join(dir, f)) ?? '');
  const pytestStyle = files.some((f, i) => existsSync(join(dir, dirname(f), 'conftest.py')) || /^(\s*(import|from)\s+pytest\b|(async\s+)?def\s+test)/m.test(texts[i]));
  return !pytestStyle && texts.some((text) => /^\s*(import|from)\s+unittest\b/m.test(text));
}

/**
 * Where `python -m unittest` finds the tests: its default discovery from the root reaches modules
 * whose folders are all packages (`__init__.py`); a `tests/` that is not one is searched itself.
 */
function discoverArgs(dir: string, files: string[]): string[] {
  const reached = (file: string) => file.split('/').slice(0, -1).every((_, i, parts) => existsSync(join(dir, ...parts.slice(0, i + 1), '__init__.py')));
  if (files.every(reached)) return [];
  const top = files.find((f) => !reached(f))!.split('/')[0];
  return ['discover', '-s', top];
}

/**
 * The project's Python test command (docs/real-repositories.md#verify-without-configuration):
 * the owner's own (tox's `commands`, else the CI workflow's test step) when it runs pytest or
 * unittest; else `python -m pytest -q` when the project uses pytest anywhere (its configuration,
 * pytest named in any requirements file, pyproject, setup.cfg, setup.py, tox or nox, a test
 * module importing it); else `python -m unittest` for test modules written for unittest. `python`
 * is the venv's when setup made one (`.venv/bin` comes first on PATH); the sandbox has only
 * `python3` otherwise.
 */
export function pythonTest(dir: string): string | undefined {
  const python = existsSync(join(dir, '.venv', 'bin', 'python')) ? 'python' : 'python3';
  const files = testFiles(dir);
  const manifests = [...requirementFiles(dir), ...MANIFESTS].filter((f) => existsSync(join(dir, f)));
  const configured = PYTEST_CONFIG.some(([file, section]) => {
    const text = readText(join(dir, file));
    return text !== undefined && (!section || section.test(text));
  });
  if (!files.length && !manifests.length && !configured) return undefined;
  const owner = ownerTestRun(dir);
  if (owner) {
    const args = owner.runner === 'pytest' ? pytestArgs(dir, owner.args) : unittestArgs(owner.args);
    return [python, '-m', owner.runner, ...args].map(shellWord).join(' ');
  }
  const named = manifests.some((f) => PYTEST_NAMED.test(readText(join(dir, f)) ?? ''));
  if (!configured && !named && files.length && writtenForUnittest(dir, files)) return [python, '-m', 'unittest', ...discoverArgs(dir, files)].join(' ');
  return configured || named || files.length ? `${python} -m pytest -q` : undefined;
}
