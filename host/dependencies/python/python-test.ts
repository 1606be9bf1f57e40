import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readText } from '../ecosystem-plan';

/** pytest's own configuration, in any of the files it reads it from. */
const PYTEST_CONFIG: [file: string, section: RegExp | undefined][] = [
  ['pytest.ini', undefined],
  ['conftest.py', undefined],
  ['pyproject.toml', /^\[tool\.pytest\.ini_options\]/m],
  ['setup.cfg', /^\[tool:pytest\]/m],
  ['tox.ini', /^\[pytest\]/m],
];
/** pytest (or a plugin of it, which needs it) declared as a dependency: `pytest`, `pytest==8.1`, `"pytest>=7"`, `pytest-cov`, poetry's `pytest = "^8"`. */
const PYTEST_DECLARED = /(^|["'\s,[])pytest\b/m;

/**
 * `python -m pytest -q` when the project uses pytest: its configuration, pytest declared in its
 * requirements or pyproject.toml, or `test_*.py` / `*_test.py` files at the root or in `tests/` or
 * `test/`. `python` is the venv's when setup made one (`.venv/bin` comes first on PATH); the
 * sandbox has only `python3` otherwise.
 */
export function pythonTest(dir: string): string | undefined {
  const configured = PYTEST_CONFIG.some(([file, section]) => {
    const text = readText(join(dir, file));
    return text !== undefined && (!section || section.test(text));
  });
  const manifests = [...filesIn(dir).filter((f) => /^requirements.*\.txt$/.test(f)), 'pyproject.toml', 'setup.cfg', 'setup.py'];
  const declared = manifests.some((f) => PYTEST_DECLARED.test(readText(join(dir, f)) ?? ''));
  const testFiles = ['.', 'tests', 'test'].some((sub) => hasTestFile(join(dir, sub), sub === '.' ? 0 : 2));
  if (!configured && !declared && !testFiles) return undefined;
  return existsSync(join(dir, '.venv', 'bin', 'python')) ? 'python -m pytest -q' : 'python3 -m pytest -q';
}

const filesIn = (dir: string): string[] => {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
};

/** A pytest test file in `dir`, or in its folders up to `depth` below. */
function hasTestFile(dir: string, depth: number): boolean {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return false;
  }
  return entries.some((e) =>
    e.isFile() ? /^test_.*\.py$|_test\.py$/.test(e.name) : depth > 0 && e.isDirectory() && !e.name.startsWith('.') && hasTestFile(join(dir, e.name), depth - 1),
  );
}
