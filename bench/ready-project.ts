import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** The project's dependencies: two common dev tools whose trees together install a few hundred packages. */
const DEV_DEPENDENCIES = { jest: '29.7.0', eslint: '8.57.0' };

/** What `git commit` needs whatever the machine's git config says. */
const GIT_IDENTITY = ['-c', 'user.name=dex bench', '-c', 'user.email=bench@dex.invalid', '-c', 'commit.gpgsign=false'];

/** A git repository with an npm project and its committed lockfile, as a user's checkout would be before any install. */
export interface ReadyProject {
  dir: string;
  /** Packages `npm ci` installs: the lockfile's `packages` entries but the root. */
  packages: number;
}

/** The environment of a plain npm command: this process's, without what `npm run` put there, with `cache` as npm's cache. */
export function npmEnv(cache: string): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
  return { ...env, npm_config_cache: cache, npm_config_update_notifier: 'false' };
}

/** Runs `file args` in `cwd`; rejects with its output when it fails. */
export async function run(file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const { stdout } = await execFileAsync(file, args, { cwd, env, maxBuffer: 64 * 1024 * 1024, timeout: 600_000 });
  return stdout;
}

/**
 * Writes the project in a new folder under `parent`: package.json, the package-lock.json npm
 * resolves for it (no install, and its metadata fetched into a cache of its own, so no later
 * measurement finds it warm), node_modules/ ignored, all in one commit.
 */
export async function writeReadyProject(parent: string): Promise<ReadyProject> {
  const dir = await mkdtemp(join(parent, 'project-'));
  const manifest = { name: 'ready-bench', version: '1.0.0', private: true, devDependencies: DEV_DEPENDENCIES };
  await writeFile(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  await writeFile(join(dir, '.gitignore'), 'node_modules/\n');
  const lockCache = await mkdtemp(join(parent, 'lock-cache-'));
  try {
    await run('npm', ['install', '--package-lock-only', '--no-audit', '--no-fund'], dir, npmEnv(lockCache));
  } finally {
    await rm(lockCache, { recursive: true, force: true });
  }
  await run('git', ['init', '-q', '-b', 'main'], dir);
  await run('git', ['add', '-A'], dir);
  await run('git', [...GIT_IDENTITY, 'commit', '-q', '-m', 'ready bench project'], dir);
  const lock = JSON.parse(await readFile(join(dir, 'package-lock.json'), 'utf8')) as { packages: Record<string, unknown> };
  return { dir, packages: Object.keys(lock.packages).filter((path) => path !== '').length };
}
