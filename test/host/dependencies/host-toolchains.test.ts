import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { detectEcosystems, withToolchains } from '../../../host/dependencies/ecosystems';
import { hostToolchains, mountable } from '../../../host/dependencies/host-toolchains';
import { commitProject, git, writeFiles } from '../../support/projects/real-projects';

const CRATE = { 'Cargo.toml': '[package]\nname = "x"\nversion = "0.1.0"\n\n[dependencies]\nitoa = "1"\n', 'src/lib.rs': '' };

describe('the Rust plan', () => {
  it('a crate without Cargo.lock gets one resolved at setup, kept as an output (cached, never committed), keyed by its manifest', () => {
    const repo = commitProject('lockless', CRATE);
    const [plan] = detectEcosystems(repo);
    expect(plan).toMatchObject({ ecosystem: 'rust', command: 'cargo generate-lockfile && cargo fetch --locked', inputs: ['Cargo.toml'], outputs: ['Cargo.lock', '.dex/cargo'], scratch: ['target'] });
    expect(plan.commandEnv.CARGO_NET_OFFLINE).toBe('true');
    // The lockfile setup wrote is not the project's: detection stays the same once it is there.
    writeFileSync(join(repo, 'Cargo.lock'), '# generated\n');
    expect(detectEcosystems(repo)).toEqual([plan]);
  });

  it('a crate whose Cargo.lock git tracks is fetched as locked, and the lockfile keys it', () => {
    const repo = commitProject('locked', { ...CRATE, 'Cargo.lock': '# locked\n' });
    const [plan] = detectEcosystems(repo);
    expect(plan).toMatchObject({ command: 'cargo fetch --locked', updateCommand: 'cargo fetch', inputs: ['Cargo.toml', 'Cargo.lock'], outputs: ['.dex/cargo'] });
  });

  it("a workspace's member manifests key it too (tracked or new), build output does not", () => {
    const repo = commitProject('workspace', { 'Cargo.toml': '[workspace]\nmembers = ["crates/*"]\n', 'crates/b/Cargo.toml': '', 'crates/a/Cargo.toml': '', '.gitignore': '/target\n' });
    writeFiles(repo, { 'crates/c/Cargo.toml': '', 'target/package/x-0.1.0/Cargo.toml': '' });
    expect(detectEcosystems(repo)[0].inputs).toEqual(['Cargo.toml', 'crates/a/Cargo.toml', 'crates/b/Cargo.toml', 'crates/c/Cargo.toml']);
  });
});

describe('the Go plan', () => {
  it('a module without go.sum (no dependencies) still gets its toolchain and a build cache', () => {
    const [plan] = detectEcosystems(commitProject('nodeps', { 'go.mod': 'module x\n\ngo 1.21\n' }), { goRoot: '/usr/local/go' });
    expect(plan).toMatchObject({ ecosystem: 'go', inputs: ['go.mod'], scratch: ['.dex/gocache'], binDirs: ['/usr/local/go/bin'], toolchainPaths: [] });
  });
});

describe('withToolchains', () => {
  const toolchains = { pythonPrefix: '/root/.pyenv/versions/3.11.7', nodePrefix: '/usr', goRoot: '/home/o/sdk/go1.22', rustSysroot: '/home/o/.rustup/toolchains/stable-x86_64-unknown-linux-gnu' };
  it("puts each plan's own toolchain after the worktree's folders on PATH and mounts it, unless it is a system folder", () => {
    const venv = withToolchains({ ecosystem: 'python', binDirs: ['.venv/bin'], toolchainPaths: [] } as never, toolchains);
    expect(venv.binDirs).toEqual(['.venv/bin', '/root/.pyenv/versions/3.11.7/bin']);
    expect(venv.toolchainPaths).toEqual(['/root/.pyenv/versions/3.11.7']);
    // Debian's node is in /usr: on the sandbox's PATH and mounted already.
    expect(withToolchains({ ecosystem: 'npm', binDirs: ['node_modules/.bin'], toolchainPaths: [] } as never, toolchains)).toMatchObject({ binDirs: ['node_modules/.bin'], toolchainPaths: [] });
    const rust = withToolchains({ ecosystem: 'rust', binDirs: [], toolchainPaths: [] } as never, toolchains);
    expect(rust.toolchainPaths).toEqual([toolchains.rustSysroot]);
    // setup.commands may run any of them.
    expect(withToolchains({ ecosystem: 'commands', binDirs: [], toolchainPaths: [] } as never, toolchains).toolchainPaths).toHaveLength(3);
  });

  it('never mounts the home, a folder above it, ~/.cargo (credentials.toml) or ~/.local whole, nor a folder with a credentials file', () => {
    const home = mkdtempSync(join(tmpdir(), 'dex-home-'));
    const sysroot = join(home, '.rustup', 'toolchains', 'stable');
    mkdirSync(sysroot, { recursive: true });
    expect(mountable(sysroot, home)).toBe(true);
    for (const folder of [home, tmpdir(), '/', join(home, '.cargo'), join(home, '.local'), join(home, '.ssh', 'x')]) expect(mountable(folder, home), folder).toBe(false);
    mkdirSync(join(home, 'go'));
    writeFileSync(join(home, 'go', 'credentials.toml'), '');
    expect(mountable(join(home, 'go'), home)).toBe(false);
  });
});

describe('hostToolchains: what the owner finds in the project folder', () => {
  const path = process.env.PATH;
  afterEach(() => {
    process.env.PATH = path;
  });

  it('asks the toolchain on the owner\'s PATH, run in the project folder, where it is installed; only for the ecosystems found', () => {
    const root = mkdtempSync(join(tmpdir(), 'dex-owner-'));
    const sysroot = join(root, 'toolchains', 'pinned');
    mkdirSync(join(sysroot, 'bin'), { recursive: true });
    const bin = join(root, 'bin');
    mkdirSync(bin);
    // A rustup-like proxy: the toolchain it picks depends on the folder it runs in (rust-toolchain.toml).
    writeFileSync(join(bin, 'rustc'), `#!/bin/sh\n[ -f rust-toolchain.toml ] && echo ${sysroot} || echo /nowhere\n`);
    chmodSync(join(bin, 'rustc'), 0o755);
    const project = join(root, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'rust-toolchain.toml'), '[toolchain]\nchannel = "pinned"\n');
    process.env.PATH = `${bin}:/usr/bin:/bin`;
    expect(hostToolchains(project, ['rust'])).toEqual({ rustSysroot: sysroot });
    expect(hostToolchains(root, ['rust'])).toEqual({});
    expect(hostToolchains(project, ['npm'])).not.toHaveProperty('rustSysroot');
  });

  it("finds rustup's ~/.cargo/bin when the worker's PATH lacks it (a service started without the owner's profile)", () => {
    const cargoHome = mkdtempSync(join(tmpdir(), 'dex-cargo-home-'));
    const sysroot = join(cargoHome, 'sysroot');
    mkdirSync(join(cargoHome, 'bin'), { recursive: true });
    mkdirSync(sysroot);
    writeFileSync(join(cargoHome, 'bin', 'rustc'), `#!/bin/sh\necho ${sysroot}\n`);
    chmodSync(join(cargoHome, 'bin', 'rustc'), 0o755);
    const before = process.env.CARGO_HOME;
    process.env.PATH = '/usr/bin:/bin';
    process.env.CARGO_HOME = cargoHome;
    try {
      expect(hostToolchains(tmpdir(), ['rust'])).toEqual({ rustSysroot: sysroot });
    } finally {
      if (before === undefined) delete process.env.CARGO_HOME;
      else process.env.CARGO_HOME = before;
    }
  });

  it("finds an nvm-like Node by where the running node says it is, not by the shim or link on PATH", () => {
    const root = mkdtempSync(join(tmpdir(), 'dex-nvm-'));
    const version = join(root, '.nvm', 'versions', 'node', 'v22.1.0');
    mkdirSync(join(version, 'bin'), { recursive: true });
    writeFileSync(join(version, 'bin', 'node'), `#!/bin/sh\necho ${join(version, 'bin', 'node')}\n`);
    chmodSync(join(version, 'bin', 'node'), 0o755);
    const shims = join(root, 'shims');
    mkdirSync(shims);
    // A volta-like shim: a program of its own that runs the real node.
    writeFileSync(join(shims, 'node'), `#!/bin/sh\nexec ${join(version, 'bin', 'node')} "$@"\n`);
    chmodSync(join(shims, 'node'), 0o755);
    process.env.PATH = `${shims}:/usr/bin:/bin`;
    const found = hostToolchains(root, ['pnpm']);
    expect(found).toEqual({ nodePrefix: version });
    const plan = withToolchains({ ecosystem: 'pnpm', binDirs: ['node_modules/.bin'], toolchainPaths: [] } as never, found);
    expect(plan).toMatchObject({ binDirs: ['node_modules/.bin', join(version, 'bin')], toolchainPaths: [version] });
  });

  it.skipIf(!existsSync('/root/.pyenv/versions/3.12.1'))("pyenv's shims honour the project's .python-version: its version's prefix, not the shim", () => {
    const project = commitProject('pinned-python', { '.python-version': '3.12.1\n' });
    expect(hostToolchains(project, ['python']).pythonPrefix).toBe('/root/.pyenv/versions/3.12.1');
    git(project, 'rm', '-q', '.python-version');
    expect(hostToolchains(project, ['python']).pythonPrefix).toBe(execFileSync('python3', ['-c', 'import sys; print(sys.base_prefix)'], { cwd: tmpdir(), encoding: 'utf8' }).trim());
  });
});
