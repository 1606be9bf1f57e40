import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { readText } from './ecosystem-plan';
import { pythonTest } from './python/python-test';
import { nativeTest } from './native/native-test';
import { jvmTest } from './jvm/jvm-test';

/**
 * The project's own test commands, picked from a set-up worktree when `dex.config.yaml` has no
 * `verify:` (docs/real-repositories.md#verify-without-configuration). One per ecosystem found, in
 * this order: Node (the `test` script, by the package manager setup used), Python (pytest, when
 * the project uses it), Go, Rust, C/C++ (ctest, `meson test`, make's `check` or `test`), Maven or
 * Gradle (offline). Empty when none fits: the task then runs without verify.
 */
export function detectTestCommands(worktree: string): string[] {
  return [nodeTest(worktree), pythonTest(worktree), goTest(worktree), rustTest(worktree), nativeTest(worktree), jvmTest(worktree)].filter((c): c is string => c !== undefined);
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
  return `${nodePackageManagerOf(dir)} test`;
}

/** The package manager a Node project's lockfile names, which setup put on PATH at the project's version. */
export const nodePackageManagerOf = (dir: string): 'pnpm' | 'yarn' | 'npm' =>
  existsSync(join(dir, 'pnpm-lock.yaml')) ? 'pnpm' : existsSync(join(dir, 'yarn.lock')) ? 'yarn' : 'npm';

/** `go test ./...` for a Go module. */
const goTest = (dir: string): string | undefined => (existsSync(join(dir, 'go.mod')) ? 'go test ./...' : undefined);

/** `cargo test` for a Rust crate or workspace. */
const rustTest = (dir: string): string | undefined => (existsSync(join(dir, 'Cargo.toml')) ? 'cargo test' : undefined);
