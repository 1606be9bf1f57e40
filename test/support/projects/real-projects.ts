/**
 * Small real projects for the real-repositories tests (docs/real-repositories.md): each has
 * dependencies from the real registries, its own test runner and one planted one-line bug. No
 * third-party source is copied: the lockfiles are made at test time from the registry.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { completionTurn, toolTurn } from '../model/cassette-builder';

/** A project: where it is, and what fixes its planted bug. */
export interface RealProject {
  repo: string;
  /** The file with the bug, and the one-line edit that fixes it. */
  fix: { path: string; old_string: string; new_string: string };
}

export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
}

export const git = (repo: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: repo, stdio: 'pipe' });

/** A new temporary folder holding `files` (path → content), not a repository: for detection's unit tests. */
export function folderWith(files: Record<string, string>, prefix = 'dex-files-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  writeFiles(dir, files);
  return dir;
}

/** The cassette turns that fix a project's planted bug: one edit, then complete. */
export const fixTurns = (task: string, fix: RealProject['fix']) => [
  toolTurn(task, ['edit_file', fix]),
  completionTurn(task, { status: 'complete', summary: `fixed ${fix.path}` }),
];

/** A new git repository named `name` holding `files`, committed on main (after `prepare`, which may add a lockfile). */
export function commitProject(name: string, files: Record<string, string>, prepare?: (dir: string) => void): string {
  const repo = join(mkdtempSync(join(tmpdir(), 'dex-real-')), name);
  mkdirSync(repo);
  writeFiles(repo, files);
  prepare?.(repo);
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'init');
  return repo;
}

/** Writes package-lock.json from the registry, as a developer's `npm install` would have. */
export const lockFromRegistry = (dir: string) => execFileSync('npm', ['install', '--package-lock-only', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'pipe' });

/** A CommonJS project: `ms` as a dependency, `uvu` (a devDependency) as its test runner; `toMs` adds 1. */
export function npmProject(opts: { bug?: boolean; extra?: Record<string, string>; dependencies?: Record<string, string> } = {}): RealProject {
  const bug = opts.bug ?? true;
  const repo = commitProject(
    'durations',
    {
      'package.json': `${JSON.stringify({ name: 'durations', version: '1.0.0', private: true, scripts: { test: 'uvu test' }, dependencies: opts.dependencies ?? { ms: '2.1.3' }, devDependencies: { uvu: '0.5.6' } }, null, 2)}\n`,
      '.gitignore': 'node_modules/\n',
      'src/duration.js': `const ms = require('ms');\n\nexports.toMs = (text) => ms(text)${bug ? ' + 1' : ''};\n`,
      'test/duration.test.js': "const { test } = require('uvu');\nconst assert = require('uvu/assert');\nconst { toMs } = require('../src/duration');\n\ntest('parses seconds', () => {\n  assert.is(toMs('2s'), 2000);\n});\n\ntest.run();\n",
      ...opts.extra,
    },
    lockFromRegistry,
  );
  return { repo, fix: { path: 'src/duration.js', old_string: 'ms(text) + 1', new_string: 'ms(text)' } };
}

/** A Python project tested with pytest in a virtual environment: `attrs` and `pytest` from requirements.txt; `add` subtracts. */
export function pythonProject(opts: { bug?: boolean } = {}): RealProject {
  const bug = opts.bug ?? true;
  const repo = commitProject('money', {
    'requirements.txt': 'attrs==24.2.0\npytest==8.3.3\n',
    '.gitignore': '.venv/\n__pycache__/\n.pytest_cache/\n',
    'dex.config.yaml': 'verify: ["python -m pytest -q"]\n',
    'money.py': `import attrs\n\n\n@attrs.define\nclass Money:\n    cents: int\n\n    def add(self, other):\n        return Money(self.cents ${bug ? '-' : '+'} other.cents)\n`,
    'test_money.py': 'from money import Money\n\n\ndef test_add():\n    assert Money(1).add(Money(2)).cents == 3\n',
  });
  return { repo, fix: { path: 'money.py', old_string: 'self.cents - other.cents', new_string: 'self.cents + other.cents' } };
}

/** A TypeScript project that builds with `tsc` before `node --test` runs the built tests; `slug` keeps upper case. */
export function typescriptProject(): RealProject {
  const repo = commitProject(
    'slugs',
    {
      'package.json': `${JSON.stringify({ name: 'slugs', version: '1.0.0', private: true, scripts: { build: 'tsc -p .', test: 'npm run build && node --test dist/' }, devDependencies: { typescript: '5.6.3', '@types/node': '20.17.6' } }, null, 2)}\n`,
      '.gitignore': 'node_modules/\ndist/\n',
      'tsconfig.json': `${JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'commonjs', outDir: 'dist', rootDir: 'src', strict: true, esModuleInterop: true, types: ['node'] }, include: ['src'] }, null, 2)}\n`,
      'src/slug.ts': "export function slug(title: string): string {\n  return title.trim().replace(/\\s+/g, '-');\n}\n",
      'src/slug.test.ts': "import test from 'node:test';\nimport assert from 'node:assert';\nimport { slug } from './slug';\n\ntest('slug lowers case', () => {\n  assert.strictEqual(slug(' Hello World '), 'hello-world');\n});\n",
    },
    lockFromRegistry,
  );
  return { repo, fix: { path: 'src/slug.ts', old_string: "title.trim().replace(/\\s+/g, '-')", new_string: "title.trim().toLowerCase().replace(/\\s+/g, '-')" } };
}

/**
 * A hash of the tree at `dir` (names, types, modes, link targets, contents), with each of
 * `places` in a file's content written as `{place}`: copies of a virtual environment at two places hash alike.
 */
export function treeHash(dir: string, places: string[] = []): string {
  const hash = createHash('sha256');
  const walk = (rel: string) => {
    for (const name of readdirSync(join(dir, rel)).sort()) {
      const path = join(rel, name);
      const info = lstatSync(join(dir, path));
      hash.update(`${path}\0${info.mode}\0`);
      if (info.isSymbolicLink()) hash.update(readlinkSync(join(dir, path)));
      else if (info.isDirectory()) walk(path);
      else {
        const content = readFileSync(join(dir, path));
        hash.update(places.reduce((text, place) => text.split(place).join('{place}'), content.toString('latin1')));
      }
    }
  };
  walk('');
  return hash.digest('hex');
}
