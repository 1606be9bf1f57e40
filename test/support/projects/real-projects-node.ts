/**
 * Small real pnpm and yarn projects (docs/real-repositories.md#package-managers): `ms` as a
 * dependency, `uvu` as the test runner, one planted one-line bug, the lockfile made at test time
 * by the real package manager from the registry (on the host, as a developer would have).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commitProject, type RealProject } from './real-projects';

/** The pnpm release the pnpm project pins: a current 10.x, which Node 20's corepack cannot set up in the sandbox. */
export const PINNED_PNPM = '10.34.9';
export const YARN_CLASSIC = '1.22.22';
/** The yarn 2+ release the berry project ships in .yarn/releases. */
export const SHIPPED_YARN = '4.18.1';

const npx = (dir: string, ...args: string[]) => execFileSync('npx', ['-y', ...args], { cwd: dir, stdio: 'pipe' });

/** corepack's pin of `pnpm@version`: the version and the sha512 of its npm tarball in hex, from the registry. */
function corepackPin(name: string, version: string): string {
  const integrity = execFileSync('npm', ['view', `${name}@${version}`, 'dist.integrity'], { encoding: 'utf8' }).trim();
  return `${name}@${version}+sha512.${Buffer.from(integrity.replace(/^sha512-/, ''), 'base64').toString('hex')}`;
}

const DURATION = (bug: boolean) => `const ms = require('ms');\n\nexports.toMs = (text) => ms(text)${bug ? ' + 1' : ''};\n`;
const DURATION_TEST = "const { test } = require('uvu');\nconst assert = require('uvu/assert');\nconst { toMs } = require('../src/duration');\n\ntest('parses seconds', () => {\n  assert.is(toMs('2s'), 2000);\n});\n\ntest.run();\n";
const FIX = { path: 'src/duration.js', old_string: 'ms(text) + 1', new_string: 'ms(text)' };

const manifest = (name: string, extra: Record<string, unknown> = {}) =>
  `${JSON.stringify({ name, version: '1.0.0', private: true, scripts: { test: 'uvu test' }, dependencies: { ms: '2.1.3' }, devDependencies: { uvu: '0.5.6' }, ...extra }, null, 2)}\n`;

/** A pnpm project whose package.json pins pnpm 10.x with corepack's hash; its lockfile made by that pnpm. */
export function pnpmProject(): RealProject {
  const repo = commitProject(
    'durations-pnpm',
    {
      'package.json': manifest('durations-pnpm', { packageManager: corepackPin('pnpm', PINNED_PNPM) }),
      '.gitignore': 'node_modules/\n',
      'src/duration.js': DURATION(true),
      'test/duration.test.js': DURATION_TEST,
    },
    (dir) => npx(dir, `pnpm@${PINNED_PNPM}`, 'install', '--lockfile-only'),
  );
  return { repo, fix: FIX };
}

/** A yarn classic project: yarn.lock v1 made by yarn 1.22.22, no packageManager (the lockfile says which yarn). */
export function yarnClassicProject(): RealProject {
  const repo = commitProject(
    'durations-yarn',
    {
      'package.json': manifest('durations-yarn'),
      '.gitignore': 'node_modules/\n',
      'src/duration.js': DURATION(true),
      'test/duration.test.js': DURATION_TEST,
    },
    (dir) => {
      npx(dir, `yarn@${YARN_CLASSIC}`, 'install', '--ignore-scripts', '--non-interactive', '--no-progress');
      rmSync(join(dir, 'node_modules'), { recursive: true, force: true });
    },
  );
  return { repo, fix: FIX };
}

/** A devDependency whose `engines` exclude Node 20: string-width 9.0.0 asks for `>=22` (and runs on Node 20 all the same). */
export const NEWER_ENGINES_DEV_DEPENDENCY = { name: 'string-width', version: '9.0.0', node: '>=22' };

/**
 * A yarn classic project with that devDependency: its lockfile made with `--ignore-engines`, as an
 * owner on Node 20 makes it (on Node 22 yarn needs no flag and writes the same lockfile).
 */
export function yarnNewerEnginesProject(): RealProject {
  const { name, version } = NEWER_ENGINES_DEV_DEPENDENCY;
  const repo = commitProject(
    'durations-yarn-engines',
    {
      'package.json': manifest('durations-yarn-engines', { devDependencies: { uvu: '0.5.6', [name]: version } }),
      '.gitignore': 'node_modules/\n',
      'src/duration.js': DURATION(true),
      'test/duration.test.js': DURATION_TEST,
    },
    (dir) => {
      npx(dir, `yarn@${YARN_CLASSIC}`, 'install', '--ignore-scripts', '--ignore-engines', '--non-interactive', '--no-progress');
      rmSync(join(dir, 'node_modules'), { recursive: true, force: true });
    },
  );
  return { repo, fix: FIX };
}

/**
 * A pnpm workspace: the bug is in `packages/duration`, whose own dependency `ms` pnpm links into
 * `packages/duration/node_modules` only; the root's test imports it.
 */
export function pnpmWorkspaceProject(): RealProject {
  const repo = commitProject(
    'durations-monorepo',
    {
      'package.json': `${JSON.stringify({ name: 'durations-monorepo', private: true, scripts: { test: 'uvu test' }, devDependencies: { uvu: '0.5.6' }, packageManager: `pnpm@${PINNED_PNPM}` }, null, 2)}\n`,
      'pnpm-workspace.yaml': "packages:\n  - 'packages/*'\n",
      '.gitignore': 'node_modules/\n',
      'packages/duration/package.json': `${JSON.stringify({ name: 'duration', version: '1.0.0', main: 'index.js', dependencies: { ms: '2.1.3' } }, null, 2)}\n`,
      'packages/duration/index.js': DURATION(true),
      'test/duration.test.js': DURATION_TEST.replace("'../src/duration'", "'../packages/duration'"),
    },
    (dir) => npx(dir, `pnpm@${PINNED_PNPM}`, 'install', '--lockfile-only'),
  );
  return { repo, fix: { path: 'packages/duration/index.js', old_string: 'ms(text) + 1', new_string: 'ms(text)' } };
}

/** Yarn 2+'s own release file, `bin/yarn.js` of @yarnpkg/cli-dist at `version`, fetched with npm from the registry. */
function yarnRelease(version: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'dex-yarn-release-'));
  execFileSync('npm', ['pack', `@yarnpkg/cli-dist@${version}`, '--silent'], { cwd: dir, stdio: 'pipe' });
  execFileSync('tar', ['-xzf', readdirSync(dir).find((name) => name.endsWith('.tgz'))!], { cwd: dir });
  return join(dir, 'package', 'bin', 'yarn.js');
}

/**
 * A yarn 4 project that ships its release (`yarnPath` in .yarnrc.yml, as `yarn set version` leaves
 * it) with the node-modules linker; its lockfile made by that release.
 */
export function yarnBerryProject(): RealProject {
  const release = `.yarn/releases/yarn-${SHIPPED_YARN}.cjs`;
  const repo = commitProject(
    'durations-berry',
    {
      'package.json': manifest('durations-berry'),
      '.yarnrc.yml': `nodeLinker: node-modules\nyarnPath: ${release}\n`,
      '.gitignore': 'node_modules/\n.yarn/*\n!.yarn/releases\n',
      'src/duration.js': DURATION(true),
      'test/duration.test.js': DURATION_TEST,
    },
    (dir) => {
      mkdirSync(join(dir, '.yarn', 'releases'), { recursive: true });
      copyFileSync(yarnRelease(SHIPPED_YARN), join(dir, release));
      execFileSync('node', [release, 'install', '--mode=update-lockfile'], { cwd: dir, stdio: 'pipe', env: { ...process.env, YARN_ENABLE_TELEMETRY: '0' } });
      rmSync(join(dir, 'node_modules'), { recursive: true, force: true });
    },
  );
  return { repo, fix: FIX };
}
