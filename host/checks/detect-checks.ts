import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ProjectCheck } from '../../core/task/project-checks';
import { readText } from '../dependencies/ecosystem-plan';
import { readSetupState } from '../dependencies/setup-state';
import { nodePackageManagerOf } from '../dependencies/test-command';

/** npm scripts that are a check, by the name every view gives it; the first script present of each is run. */
const NODE_SCRIPTS: [check: string, scripts: string[]][] = [
  ['lint', ['lint']],
  ['typecheck', ['typecheck', 'type-check', 'types', 'check-types']],
  ['build', ['build']],
];

/**
 * The project's own checks besides its tests, picked from a set-up worktree
 * (docs/real-repositories.md#checks-besides-tests): npm scripts `lint`, `typecheck` (or
 * `type-check`) and `build`; `go vet` for a Go module; `cargo clippy` where the toolchain has it;
 * ruff, mypy and flake8 where the project configures them and setup installed them in its venv.
 * A script the test script already runs (`"test": "npm run lint && jest"`) is not run twice.
 */
export function detectChecks(worktree: string): ProjectCheck[] {
  return [...nodeChecks(worktree), ...goChecks(worktree), ...rustChecks(worktree), ...pythonChecks(worktree)];
}

function nodeChecks(dir: string): ProjectCheck[] {
  let scripts: Record<string, unknown>;
  try {
    scripts = (JSON.parse(readText(join(dir, 'package.json')) ?? 'null') as { scripts?: Record<string, unknown> } | null)?.scripts ?? {};
  } catch {
    return [];
  }
  const pm = nodePackageManagerOf(dir);
  const testing = ['pretest', 'test', 'posttest'].map((s) => scripts[s]).filter((s) => typeof s === 'string').join(' ; ');
  const checks: ProjectCheck[] = [];
  for (const [check, names] of NODE_SCRIPTS) {
    const script = names.find((name) => typeof scripts[name] === 'string' && (scripts[name] as string).trim());
    if (!script || runsScript(testing, script)) continue;
    checks.push({ name: check, command: pm === 'yarn' ? `yarn run ${script}` : `${pm} run ${script}` });
  }
  return checks;
}

/** True when the scripts `text` run the npm script `name` (`npm run lint`, `yarn lint`, `pnpm lint`, `run-s lint`). */
const runsScript = (text: string, name: string): boolean =>
  new RegExp(`\\b(?:(?:npm|pnpm|yarn|bun)(?:\\s+run)?|run-s|run-p|npm-run-all)\\s+(?:[\\w:-]+\\s+)*${name.replace(/[-:]/g, '\\$&')}(?![\\w:-])`).test(text);

const goChecks = (dir: string): ProjectCheck[] => (existsSync(join(dir, 'go.mod')) ? [{ name: 'vet', command: 'go vet ./...' }] : []);

/** `cargo clippy` when the owner's Rust toolchain has clippy (rustup's `clippy` component): it fails only on lints the project denies. */
function rustChecks(dir: string): ProjectCheck[] {
  if (!existsSync(join(dir, 'Cargo.toml'))) return [];
  // The toolchain setup found and recorded for this worktree: not looked up again.
  const sysroot = readSetupState(dir)?.toolchains?.rustSysroot;
  return sysroot && existsSync(join(sysroot, 'bin', 'cargo-clippy')) ? [{ name: 'clippy', command: 'cargo clippy --all-targets -q' }] : [];
}

/** Where each Python tool reads its configuration: a file of its own, or a section of a shared one. */
const PYTHON_TOOLS: [tool: string, command: string, config: [file: string, section?: RegExp][]][] = [
  ['ruff', 'ruff check .', [['ruff.toml'], ['.ruff.toml'], ['pyproject.toml', /^\[tool\.ruff(\.[\w-]+)*\]/m]]],
  ['mypy', 'mypy', [['mypy.ini'], ['.mypy.ini'], ['pyproject.toml', /^\[tool\.mypy\]/m], ['setup.cfg', /^\[mypy\]/m]]],
  ['flake8', 'flake8', [['.flake8'], ['setup.cfg', /^\[flake8\]/m], ['tox.ini', /^\[flake8\]/m]]],
];

/**
 * ruff, mypy and flake8 where the project configures them and setup installed them in the venv:
 * a tool the project does not configure is not its owner's check, and one not installed cannot run
 * offline. mypy with no `files` configured checks the whole project (`mypy .`).
 */
function pythonChecks(dir: string): ProjectCheck[] {
  const venvBin = join(dir, '.venv', 'bin');
  return PYTHON_TOOLS.flatMap(([tool, command, config]) => {
    const configured = config.find(([file, section]) => {
      const text = readText(join(dir, file));
      return text !== undefined && (!section || section.test(text));
    });
    if (!configured || !existsSync(join(venvBin, tool))) return [];
    const whole = tool === 'mypy' && !/^\s*files\s*=/m.test(readText(join(dir, configured[0])) ?? '');
    return [{ name: tool, command: whole ? 'mypy .' : command }];
  });
}
