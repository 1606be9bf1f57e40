import { describe, expect, it } from 'vitest';
import { detectTestCommands } from '../../../host/dependencies/test-command';
import { folderWith } from '../../support/projects/real-projects';

/** A folder holding `files`. */
const project = (files: Record<string, string>) => folderWith(files, 'dex-test-command-');

const pkg = (scripts: Record<string, string>) => JSON.stringify({ name: 'p', scripts });

describe("the project's own test commands, when the config names none", () => {
  it("is the package's test script, by the package manager its lockfile names, and not npm's placeholder", () => {
    expect(detectTestCommands(project({ 'package.json': pkg({ test: 'node --test' }) }))).toEqual(['npm test']);
    expect(detectTestCommands(project({ 'package.json': pkg({ test: 'vitest run' }), 'pnpm-lock.yaml': '' }))).toEqual(['pnpm test']);
    expect(detectTestCommands(project({ 'package.json': pkg({ test: 'jest' }), 'yarn.lock': '' }))).toEqual(['yarn test']);
    expect(detectTestCommands(project({ 'package.json': pkg({ test: 'echo "Error: no test specified" && exit 1' }) }))).toEqual([]);
    expect(detectTestCommands(project({ 'package.json': pkg({ build: 'tsc' }) }))).toEqual([]);
    expect(detectTestCommands(project({ 'package.json': '{ not json' }))).toEqual([]);
  });

  it("is pytest where the project uses it, with the venv's python when setup made one", () => {
    expect(detectTestCommands(project({ 'tests/test_money.py': 'def test_x(): pass\n' }))).toEqual(['python3 -m pytest -q']);
    expect(detectTestCommands(project({ 'tests/unit/money_test.py': '' }))).toEqual(['python3 -m pytest -q']);
    expect(detectTestCommands(project({ 'requirements-dev.txt': 'pytest==8.3.4\n', '.venv/bin/python': '' }))).toEqual(['python -m pytest -q']);
    expect(detectTestCommands(project({ 'pyproject.toml': '[project]\nname = "p"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n' }))).toEqual(['python3 -m pytest -q']);
    expect(detectTestCommands(project({ 'pyproject.toml': '[project]\ndependencies = []\n[project.optional-dependencies]\ntest = ["pytest>=8"]\n' }))).toEqual(['python3 -m pytest -q']);
    expect(detectTestCommands(project({ 'setup.cfg': '[tool:pytest]\ntestpaths = tests\n' }))).toEqual(['python3 -m pytest -q']);
    expect(detectTestCommands(project({ 'pytest.ini': '[pytest]\n' }))).toEqual(['python3 -m pytest -q']);
    // A Python project with no tests and no pytest gets none.
    expect(detectTestCommands(project({ 'requirements.txt': 'requests==2.32.3\n', 'app.py': '' }))).toEqual([]);
  });

  it('is `go test ./...` for a Go module and `cargo test` for a Rust crate, each ecosystem in order', () => {
    expect(detectTestCommands(project({ 'go.mod': 'module example.com/x\n\ngo 1.22\n' }))).toEqual(['go test ./...']);
    expect(detectTestCommands(project({ 'Cargo.toml': '[package]\nname = "x"\nversion = "0.1.0"\n' }))).toEqual(['cargo test']);
    const mixed = project({ 'Cargo.toml': '', 'go.mod': '', 'package.json': pkg({ test: 'vitest' }), 'test_app.py': '' });
    expect(detectTestCommands(mixed)).toEqual(['npm test', 'python3 -m pytest -q', 'go test ./...', 'cargo test']);
  });

  it('is none for a project none of these fit', () => {
    // A Makefile's `test` target is a test command (test/host/dependencies/native/native-test.test.ts); an `all` alone is none.
    expect(detectTestCommands(project({ 'README.md': '# hi\n', 'Makefile': 'all:\n\ttrue\n' }))).toEqual([]);
  });
});
