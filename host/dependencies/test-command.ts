import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readText } from './ecosystem-plan';

/**
 * The project's own test commands, picked from a set-up worktree when `dex.config.yaml` has no
 * `verify:` (docs/real-repositories.md#verify-without-configuration). One per ecosystem found, in
 * this order: Node (the `test` script, by the package manager setup used), Python (pytest, when
 * the project uses it), Go, Rust. Empty when none fits: the task then runs without verify.
 */
export function detectTestCommands(worktree: string): string[] {
  return [nodeTest(worktree), pythonTest(worktree), goTest(worktree), rustTest(worktree)].filter((c): c is string => c !== undefined);
}

/** What `npm init` writes as the test script: a placeholder that always fails, not a test suite. */
const NPM_PLACEHOLDER = /no test specified/;

/**
 * `npm test`, or `pnpm test` / `yarn test` when a pnpm or yarn lockfile says so: setup puts the
 * version the project pins on PATH (docs/real-repositories.md#package-managers).
 */
function nodeTest(dir: string): string | undefined {
  const text = readText(join(dir, 'package.json'));
  if (text === undefined) return undefined;
  let test: unknown;
  try {
    test = (JSON.parse(text) as { scripts?: Record<string, unknown> })?.scripts?.test;
  } catch {
    return undefined;
  }
  if (typeof test !== 'string' || !test.trim() || NPM_PLACEHOLDER.test(test)) return undefined;
  if (existsSync(join(dir, 'pnpm-lock.yaml'))) return 'pnpm test';
  if (existsSync(join(dir, 'yarn.lock'))) return 'yarn test';
  return 'npm test';
}

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
function pythonTest(dir: string): string | undefined {
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

/** `go test ./...` for a Go module. */
const goTest = (dir: string): string | undefined => (existsSync(join(dir, 'go.mod')) ? 'go test ./...' : undefined);

/** `cargo test` for a Rust crate or workspace. */
const rustTest = (dir: string): string | undefined => (existsSync(join(dir, 'Cargo.toml')) ? 'cargo test' : undefined);
