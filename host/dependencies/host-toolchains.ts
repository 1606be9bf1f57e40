import { spawnSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { isSystemPath } from '../sandbox/bwrap-args';
import { isWithin } from '../sandbox/repository-metadata';
import { findOnPath } from '../find-on-path';
import type { HostToolchains } from './ecosystem-plan';

/**
 * How each toolchain names the folder it is installed in, asked of the owner's own `python3`,
 * `node`, `go`, `rustc` and `java` (docs/real-repositories.md#toolchains): pyenv's and volta's shims and
 * rustup's proxies pick the version the project asks for (`.python-version`, package.json's
 * `volta`, `rust-toolchain.toml`) and run the real one, which says where it lives. The folder is
 * on the first line of its output, or on the line `line` finds (java says it on stderr).
 */
const PROBES: Record<keyof HostToolchains, { ecosystems: string[]; argv: string[]; line?: RegExp; folder: (out: string) => string }> = {
  // sys.base_prefix: the installation, also when the owner's python3 is a virtual environment's.
  pythonPrefix: { ecosystems: ['python'], argv: ['python3', '-c', 'import sys; print(sys.base_prefix)'], folder: (out) => out },
  nodePrefix: { ecosystems: ['npm', 'pnpm', 'yarn'], argv: ['node', '-p', 'process.execPath'], folder: (out) => dirname(dirname(out)) },
  goRoot: { ecosystems: ['go'], argv: ['go', 'env', 'GOROOT'], folder: (out) => out },
  // The toolchain's own folder (~/.rustup/toolchains/<name>): cargo and rustc without rustup's proxies, ~/.cargo or RUSTUP_HOME.
  rustSysroot: { ecosystems: ['rust'], argv: ['rustc', '--print', 'sysroot'], folder: (out) => out },
  // The JDK Maven and Gradle run: JAVA_HOME's when set, as their scripts choose it, else the PATH's `java`.
  javaHome: { ecosystems: ['maven', 'gradle'], argv: ['java', '-XshowSettings:properties', '-version'], line: /^\s*java\.home = (.+)$/m, folder: (out) => out },
};

/**
 * Where the usual installers put each program, for a worker whose PATH lacks them (a service
 * started without the owner's shell profile): rustup's ~/.cargo/bin, pyenv's shims, Go's
 * tarball in /usr/local/go or ~/go, and the Node that runs dex.
 */
function fallbacks(program: string, env: NodeJS.ProcessEnv = process.env, home = homedir()): string[] {
  switch (program) {
    case 'rustc':
      return [join(env.CARGO_HOME ?? join(home, '.cargo'), 'bin', 'rustc')];
    case 'python3':
      return [join(env.PYENV_ROOT ?? join(home, '.pyenv'), 'shims', 'python3')];
    case 'go':
      return ['/usr/local/go/bin/go', join(home, 'go', 'bin', 'go')];
    case 'node':
      return [process.execPath];
    default:
      return [];
  }
}

/** Folders of the home that hold more than one toolchain's files (credentials among them): never mounted whole. */
const SHARED_HOME_FOLDERS = ['.cargo', '.local', '.config', '.ssh', '.gnupg', '.aws', '.docker', '.kube', '.npm', '.cache'];

/**
 * True when `folder` may be mounted into the sandbox: neither the home nor a folder above it,
 * nor a folder of the home that is shared by many tools (~/.local, ~/.cargo, whose
 * credentials.toml must stay out), nor one holding a credentials file.
 */
export function mountable(folder: string, home = homedir()): boolean {
  if (isWithin(home, folder)) return false;
  if (isWithin(folder, home)) {
    const parts = relative(home, folder).split(sep);
    if (SHARED_HOME_FOLDERS.includes(parts[0]) && parts.length === 1) return false;
    if (['.ssh', '.gnupg', '.aws', '.config', '.docker', '.kube'].includes(parts[0])) return false;
  }
  return !['credentials', 'credentials.toml', '.netrc', '.npmrc', '.pypirc'].some((name) => existsSync(join(folder, name)));
}

/** The program `name` as the owner's tools pick it: JAVA_HOME's `java` first (Maven's and Gradle's scripts do), else from PATH, else where installers put it. */
function programFor(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const javaHome = name === 'java' && env.JAVA_HOME ? join(env.JAVA_HOME, 'bin', 'java') : undefined;
  if (javaHome && existsSync(javaHome)) return javaHome;
  return findOnPath(name) ?? fallbacks(name).find((path) => existsSync(path));
}

/** What `argv` prints run in `dir` with the owner's environment: the first line, or `line`'s match on stdout and stderr; undefined when it fails. */
function probe(argv: string[], dir: string, line?: RegExp): string | undefined {
  const program = programFor(argv[0]);
  if (!program) return undefined;
  const run = spawnSync(program, argv.slice(1), {
    cwd: dir,
    // Never install or download a toolchain while looking for one.
    env: { ...process.env, RUSTUP_AUTO_INSTALL: '0', GOTOOLCHAIN: 'local' },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 15_000,
  });
  if (run.status !== 0) return undefined;
  const found = line ? line.exec(`${run.stdout}\n${run.stderr}`)?.[1] : run.stdout.split('\n')[0];
  return found?.trim() || undefined;
}

/**
 * Where the owner's toolchains for the project at `dir` (the owner's checkout) live, for the
 * ecosystems named: what the owner's shell finds there, resolved to the installation's own folder.
 * Only those the sandbox can use are kept: outside the system folders (which it mounts anyway)
 * they must be {@link mountable}. Those `known` already are not looked for again.
 */
export function hostToolchains(dir: string, ecosystems: string[], known: (keyof HostToolchains)[] = []): HostToolchains {
  const found: HostToolchains = {};
  for (const [name, { ecosystems: users, argv, line, folder }] of Object.entries(PROBES) as [keyof HostToolchains, (typeof PROBES)[keyof HostToolchains]][]) {
    if (known.includes(name) || !users.some((e) => ecosystems.includes(e))) continue;
    const out = probe(argv, dir, line);
    if (!out || !existsSync(out)) continue;
    const path = realpathSync(folder(realpathSync(out)));
    if (isSystemPath(path) || mountable(path)) found[name] = path;
  }
  return found;
}
