import { execFileSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { isSystemPath } from '../sandbox/bwrap-args';
import { isWithin } from '../sandbox/repository-metadata';
import { findOnPath } from '../find-on-path';
import type { HostToolchains } from './ecosystem-plan';

/**
 * How each toolchain names the folder it is installed in, asked of the owner's own `python3`,
 * `node`, `go` and `rustc` (docs/real-repositories.md#toolchains): pyenv's and volta's shims and
 * rustup's proxies pick the version the project asks for (`.python-version`, package.json's
 * `volta`, `rust-toolchain.toml`) and run the real one, which says where it lives.
 */
const PROBES: Record<keyof HostToolchains, { ecosystems: string[]; argv: string[]; folder: (out: string) => string }> = {
  // sys.base_prefix: the installation, also when the owner's python3 is a virtual environment's.
  pythonPrefix: { ecosystems: ['python'], argv: ['python3', '-c', 'import sys; print(sys.base_prefix)'], folder: (out) => out },
  nodePrefix: { ecosystems: ['npm', 'pnpm', 'yarn'], argv: ['node', '-p', 'process.execPath'], folder: (out) => dirname(dirname(out)) },
  goRoot: { ecosystems: ['go'], argv: ['go', 'env', 'GOROOT'], folder: (out) => out },
  // The toolchain's own folder (~/.rustup/toolchains/<name>): cargo and rustc without rustup's proxies, ~/.cargo or RUSTUP_HOME.
  rustSysroot: { ecosystems: ['rust'], argv: ['rustc', '--print', 'sysroot'], folder: (out) => out },
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

/** The first line `argv` prints run in `dir` with the owner's environment (its program from PATH, else where installers put it); undefined when it fails. */
function probe(argv: string[], dir: string): string | undefined {
  const program = findOnPath(argv[0]) ?? fallbacks(argv[0]).find((path) => existsSync(path));
  if (!program) return undefined;
  try {
    const out = execFileSync(program, argv.slice(1), {
      cwd: dir,
      // Never install or download a toolchain while looking for one.
      env: { ...process.env, RUSTUP_AUTO_INSTALL: '0', GOTOOLCHAIN: 'local' },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 15_000,
    });
    return out.split('\n')[0].trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Where the owner's toolchains for the project at `dir` (the owner's checkout) live, for the
 * ecosystems named: what the owner's shell finds there, resolved to the installation's own folder.
 * Only those the sandbox can use are kept: outside the system folders (which it mounts anyway)
 * they must be {@link mountable}. Those `known` already are not looked for again.
 */
export function hostToolchains(dir: string, ecosystems: string[], known: (keyof HostToolchains)[] = []): HostToolchains {
  const found: HostToolchains = {};
  for (const [name, { ecosystems: users, argv, folder }] of Object.entries(PROBES) as [keyof HostToolchains, (typeof PROBES)[keyof HostToolchains]][]) {
    if (known.includes(name) || !users.some((e) => ecosystems.includes(e))) continue;
    const out = probe(argv, dir);
    if (!out || !existsSync(out)) continue;
    const path = realpathSync(folder(realpathSync(out)));
    if (isSystemPath(path) || mountable(path)) found[name] = path;
  }
  return found;
}
