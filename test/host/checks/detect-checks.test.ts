import { describe, expect, it } from 'vitest';
import { detectChecks } from '../../../host/checks/detect-checks';
import { folderWith } from '../../support/projects/real-projects';

const project = (files: Record<string, string>) => folderWith(files, 'dex-checks-');
const pkg = (scripts: Record<string, string>) => JSON.stringify({ name: 'p', scripts });

describe("the project's own checks besides its tests", () => {
  it('are the lint, typecheck and build scripts, run by the package manager the lockfile names', () => {
    expect(detectChecks(project({ 'package.json': pkg({ test: 'jest', lint: 'eslint .', 'type-check': 'tsc --noEmit', build: 'tsc' }) }))).toEqual([
      { name: 'lint', command: 'npm run lint' },
      { name: 'typecheck', command: 'npm run type-check' },
      { name: 'build', command: 'npm run build' },
    ]);
    expect(detectChecks(project({ 'package.json': pkg({ lint: 'eslint .' }), 'pnpm-lock.yaml': '' }))).toEqual([{ name: 'lint', command: 'pnpm run lint' }]);
    expect(detectChecks(project({ 'package.json': pkg({ typecheck: 'tsc' }), 'yarn.lock': '' }))).toEqual([{ name: 'typecheck', command: 'yarn run typecheck' }]);
  });

  it('leave out a script the test script already runs, and empty ones', () => {
    expect(detectChecks(project({ 'package.json': pkg({ test: 'npm run lint && jest', lint: 'eslint .', build: '' }) }))).toEqual([]);
    expect(detectChecks(project({ 'package.json': pkg({ test: 'jest', pretest: 'yarn lint', lint: 'eslint .' }) }))).toEqual([]);
    expect(detectChecks(project({ 'package.json': pkg({ test: 'run-s lint:* unit', 'lint:js': 'eslint .', lint: 'run-s lint:*' }) }))).toEqual([{ name: 'lint', command: 'npm run lint' }]);
    // `lint:js` is a different script from `lint`.
    expect(detectChecks(project({ 'package.json': pkg({ test: 'npm run lint:js && jest', lint: 'eslint .' }) }))).toEqual([{ name: 'lint', command: 'npm run lint' }]);
    expect(detectChecks(project({ 'package.json': '{ not json' }))).toEqual([]);
  });

  it('are go vet for a Go module', () => {
    expect(detectChecks(project({ 'go.mod': 'module example.com/x\n' }))).toEqual([{ name: 'vet', command: 'go vet ./...' }]);
  });

  it('are ruff, mypy and flake8 only where the project configures them and setup installed them in its venv', () => {
    const configured = { 'pyproject.toml': '[project]\nname = "p"\n\n[tool.ruff.lint]\nselect = ["E"]\n\n[tool.mypy]\nstrict = true\n', 'setup.cfg': '[flake8]\nmax-line-length = 100\n' };
    expect(detectChecks(project(configured))).toEqual([]);
    const installed = { '.venv/bin/ruff': '', '.venv/bin/mypy': '', '.venv/bin/flake8': '' };
    expect(detectChecks(project({ ...configured, ...installed }))).toEqual([
      { name: 'ruff', command: 'ruff check .' },
      { name: 'mypy', command: 'mypy .' },
      { name: 'flake8', command: 'flake8' },
    ]);
    expect(detectChecks(project({ 'mypy.ini': '[mypy]\nfiles = src\n', '.venv/bin/mypy': '' }))).toEqual([{ name: 'mypy', command: 'mypy' }]);
    expect(detectChecks(project({ ...installed, 'pyproject.toml': '[project]\nname = "p"\n' }))).toEqual([]);
  });
});
