import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DependencyCache, dependencyKey } from '../../../host/dependencies/dependency-cache';
import { detectEcosystems } from '../../../host/dependencies/ecosystems';
import { copyOwnerFiles } from '../../../host/dependencies/owner-files';
import { ownerHasSame } from '../../../host/dependencies/owner-install';
import { relocateVenv } from '../../../host/dependencies/python/relocate-venv';
import { commandSetup, writeSetupState } from '../../../host/dependencies/setup-state';
import { folderWith, treeHash } from '../../support/projects/real-projects';

/** A folder holding `files`. */
const folder = (files: Record<string, string>) => folderWith(files, 'dex-detect-');

const PKG = JSON.stringify({ name: 'x', dependencies: { ms: '2.1.3' } });

describe('detectEcosystems', () => {
  it.each([
    ['npm', { 'package.json': PKG, 'package-lock.json': '{}' }, 'npm ci --no-audit --no-fund', ['package.json', 'package-lock.json']],
    ['npm without a lockfile', { 'package.json': PKG }, 'npm install --no-audit --no-fund --no-package-lock', ['package.json']],
    ['pnpm', { 'package.json': PKG, 'pnpm-lock.yaml': '' }, 'pnpm install --frozen-lockfile', ['package.json', 'pnpm-lock.yaml']],
    ['yarn classic', { 'package.json': PKG, 'yarn.lock': '' }, 'yarn install --frozen-lockfile --non-interactive', ['package.json', 'yarn.lock']],
    ['yarn berry', { 'package.json': PKG, 'yarn.lock': '', '.yarnrc.yml': '' }, 'yarn install --immutable', ['package.json', 'yarn.lock', '.yarnrc.yml']],
    ['requirements files', { 'requirements.txt': 'attrs\n', 'requirements-dev.txt': 'pytest\n' }, 'python3 -c "$DEX_PYTHON_SETUP" pip', ['requirements-dev.txt', 'requirements.txt']],
    ['uv', { 'pyproject.toml': '', 'uv.lock': '' }, '/tmp/dex-uv/bin/pip install -q uv && python3 -c "$DEX_PYTHON_SETUP" uv', ['pyproject.toml', 'uv.lock']],
    ['poetry', { 'pyproject.toml': '', 'poetry.lock': '' }, 'python3 -c "$DEX_PYTHON_SETUP" poetry', ['pyproject.toml', 'poetry.lock']],
    ['pyproject.toml alone', { 'pyproject.toml': '[project]\n' }, 'python3 -c "$DEX_PYTHON_SETUP" pip', ['pyproject.toml']],
    ['go', { 'go.mod': 'module x\n', 'go.sum': '' }, 'go mod download', ['go.mod', 'go.sum']],
    ['rust', { 'Cargo.toml': '', 'Cargo.lock': '' }, 'cargo fetch --locked', ['Cargo.toml', 'Cargo.lock']],
  ])('%s: the locked install command and the files that key it', (_, files, command, inputs) => {
    const [plan] = detectEcosystems(folder(files), {});
    expect(plan.command).toContain(command);
    expect(plan.inputs).toEqual(inputs);
  });

  it('finds each ecosystem of a mixed repository, and none where nothing needs installing', () => {
    const mixed = detectEcosystems(folder({ 'package.json': PKG, 'package-lock.json': '{}', 'requirements.txt': '', 'go.mod': 'module x\n', 'go.sum': '' }), {});
    expect(mixed.map((p) => p.ecosystem)).toEqual(['npm', 'python', 'go']);
    expect(detectEcosystems(folder({ 'README.md': '', 'package.json': '{"name":"x","scripts":{"test":"node --test"}}' }), {})).toEqual([]);
  });

  it('a toolchain outside the system folders is mounted and first on PATH; the agent gets no network for go', () => {
    const [go] = detectEcosystems(folder({ 'go.mod': 'module x\n' }), { goRoot: '/opt/go' });
    expect(go.toolchainPaths).toEqual(['/opt/go']);
    expect(go.binDirs).toEqual(['/opt/go/bin']);
    expect(go.commandEnv.GOPROXY).toBe('off');
  });
});

describe('dependencyKey', () => {
  const base = { ecosystem: 'npm', command: 'npm ci', inputs: [{ name: 'package-lock.json', content: '{"a":1}' }], toolchain: ['v20.0.0', '10.0.0'] };
  it('changes with the lockfile, the command and the toolchain, and with nothing else', () => {
    const key = dependencyKey(base);
    expect(dependencyKey({ ...base })).toBe(key);
    expect(dependencyKey({ ...base, inputs: [{ name: 'package-lock.json', content: '{"a":2}' }] })).not.toBe(key);
    expect(dependencyKey({ ...base, command: 'npm install' })).not.toBe(key);
    expect(dependencyKey({ ...base, toolchain: ['v22.0.0', '10.0.0'] })).not.toBe(key);
    expect(dependencyKey({ ...base, inputs: [{ name: 'npm-shrinkwrap.json', content: '{"a":1}' }] })).not.toBe(key);
  });
});

describe('DependencyCache', () => {
  it('stores a copy and restores copies: writing into a restored tree reaches neither the cache nor the source', async () => {
    const source = folder({ 'node_modules/ms/index.js': 'module.exports = 1;\n', 'node_modules/ms/package.json': '{}' });
    symlinkSync('../ms/index.js', join(source, 'node_modules', 'link.js'));
    chmodSync(join(source, 'node_modules/ms/index.js'), 0o755);
    const before = treeHash(join(source, 'node_modules'));
    const cache = new DependencyCache(mkdtempSync(join(tmpdir(), 'dex-cache-')));
    expect(cache.has('k1')).toBe(false);
    await cache.store('k1', { ecosystem: 'npm', outputs: ['node_modules'] }, source);
    expect(cache.has('k1')).toBe(true);

    const worktree = folder({ 'node_modules/stale.js': 'old' });
    await cache.restore('k1', worktree);
    expect(treeHash(join(worktree, 'node_modules'))).toBe(before);
    expect(existsSync(join(worktree, 'node_modules/stale.js'))).toBe(false);
    expect(statSync(join(worktree, 'node_modules/ms/index.js')).mode & 0o777).toBe(0o755);

    writeFileSync(join(worktree, 'node_modules/ms/index.js'), 'tampered');
    const again = folder({});
    await cache.restore('k1', again);
    expect(treeHash(join(again, 'node_modules'))).toBe(before);
    expect(treeHash(join(source, 'node_modules'))).toBe(before);
  });

  it('hands the next worktree its spare by a rename, makes another, and a tampered worktree reaches neither', async () => {
    const source = folder({ 'node_modules/ms/index.js': 'module.exports = 1;\n', 'node_modules/ms/package.json': '{}' });
    const before = treeHash(join(source, 'node_modules'));
    const root = mkdtempSync(join(tmpdir(), 'dex-cache-'));
    const cache = new DependencyCache(root);
    await cache.store('k', { ecosystem: 'npm', outputs: ['node_modules'] }, source);
    await cache.prepareSpare('k');
    const first = folder({});
    expect(await cache.restore('k', first)).toBe('spare');
    writeFileSync(join(first, 'node_modules/ms/index.js'), 'tampered');
    // Until the background copy is done there is no spare: a worktree that comes now is copied.
    const second = folder({});
    expect(['copy', 'spare']).toContain(await cache.restore('k', second));
    await cache.prepareSpare('k');
    const third = folder({});
    expect(await cache.restore('k', third)).toBe('spare');
    for (const dir of [second, third]) expect(treeHash(join(dir, 'node_modules'))).toBe(before);
    expect(treeHash(join(root, 'k', 'tree', 'node_modules'))).toBe(before);
  });

  it('keeps the first of two stores of one key', async () => {
    const cache = new DependencyCache(mkdtempSync(join(tmpdir(), 'dex-cache-')));
    await cache.store('k', { ecosystem: 'npm', outputs: ['node_modules'] }, folder({ 'node_modules/a': 'first' }));
    await cache.store('k', { ecosystem: 'npm', outputs: ['node_modules'] }, folder({ 'node_modules/a': 'second' }));
    const worktree = folder({});
    await cache.restore('k', worktree);
    expect(readFileSync(join(worktree, 'node_modules/a'), 'utf8')).toBe('first');
  });
});

describe('relocateVenv', () => {
  it("rewrites the scripts' #! lines and pyvenv.cfg, and leaves binaries alone", async () => {
    const venv = folder({
      'bin/pytest': '#!/old/wt/.venv/bin/python\nimport sys\n',
      'bin/activate': 'VIRTUAL_ENV="/old/wt/.venv"\n',
      'pyvenv.cfg': 'home = /usr/bin\ncommand = /usr/bin/python3 -m venv /old/wt/.venv\n',
    });
    writeFileSync(join(venv, 'bin/tool'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0x2f, 0x6f, 0x6c, 0x64]));
    const binary = readFileSync(join(venv, 'bin/tool'));
    chmodSync(join(venv, 'bin/pytest'), 0o755);
    await relocateVenv(venv, '/old/wt/.venv', '/new/wt/.venv');
    expect(readFileSync(join(venv, 'bin/pytest'), 'utf8')).toBe('#!/new/wt/.venv/bin/python\nimport sys\n');
    expect(readFileSync(join(venv, 'bin/activate'), 'utf8')).toContain('/new/wt/.venv');
    expect(readFileSync(join(venv, 'pyvenv.cfg'), 'utf8')).toContain('venv /new/wt/.venv');
    expect(readFileSync(join(venv, 'bin/tool'))).toEqual(binary);
    expect(statSync(join(venv, 'bin/pytest')).mode & 0o777).toBe(0o755);
  });
});

describe('copyOwnerFiles (setup.copy)', () => {
  const repoWith = (files: Record<string, string>) => {
    const dir = folder(files);
    execFileSync('git', ['init', '-q'], { cwd: dir });
    return dir;
  };

  it('copies an ignored file from the owner, and refuses one git would commit, one outside, one missing', async () => {
    const owner = folder({ '.env': 'TOKEN=x\n', 'notes.txt': 'mine' });
    const worktree = repoWith({ '.gitignore': '.env\n' });
    expect(await copyOwnerFiles(owner, worktree, ['.env'])).toEqual(['.env']);
    expect(readFileSync(join(worktree, '.env'), 'utf8')).toBe('TOKEN=x\n');
    await expect(copyOwnerFiles(owner, worktree, ['notes.txt'])).rejects.toThrow('setup failed: setup.copy "notes.txt" is not ignored by git, so a checkpoint would commit it');
    await expect(copyOwnerFiles(owner, worktree, ['../x'])).rejects.toThrow('is outside the repository');
    await expect(copyOwnerFiles(owner, worktree, ['missing.env'])).rejects.toThrow('is not in');
  });
});

describe('commandSetup', () => {
  it('puts the bin folders first and the worktree in the plan environment, from the state in the worktree\'s git folder', async () => {
    const worktree = repoWithCommit();
    await writeSetupState(worktree, {
      plans: [{ ecosystem: 'python', key: 'k', outputs: ['.venv'], binDirs: ['.venv/bin', '/opt/go/bin'], commandEnv: { VIRTUAL_ENV: '{worktree}/.venv' }, toolchainPaths: ['/opt/go'] }],
    });
    expect(commandSetup(worktree)).toEqual({
      pathDirs: [join(worktree, '.venv/bin'), '/opt/go/bin'],
      env: { VIRTUAL_ENV: `${worktree}/.venv` },
      readOnlyPaths: ['/opt/go'],
      dependencyPaths: ['.venv'],
      processes: 0,
    });
    // The state sits in git's folder, where the sandbox mounts nothing writable.
    expect(existsSync(join(worktree, '.git', 'dex-setup.json'))).toBe(true);
  });
});

function repoWithCommit(): string {
  const dir = folder({ 'a.txt': 'a' });
  execFileSync('git', ['init', '-q'], { cwd: dir });
  return dir;
}

describe("ownerHasSame: when the owner's node_modules may stand in for an install", () => {
  const lock = (version: string) => JSON.stringify({ packages: { '': { name: 'x' }, 'node_modules/ms': { version }, 'node_modules/fsevents': { version: '2.3.3', optional: true } } });
  const pair = (installed: string, extra: Record<string, string> = {}) => {
    const files = { 'package.json': PKG, 'package-lock.json': lock('2.1.3') };
    const owner = folder({ ...files, 'node_modules/.package-lock.json': lock(installed), 'node_modules/ms/index.js': '', ...extra });
    const worktree = folder(files);
    const [plan] = detectEcosystems(worktree, {});
    return { owner, worktree, plan };
  };

  it('takes a tree npm installed from the same lockfile, optional packages for other platforms aside', () => {
    const { owner, worktree, plan } = pair('2.1.3');
    expect(ownerHasSame(plan, worktree, owner)).toBe(true);
  });

  it('refuses a stale tree (the lockfile moved on, nobody reinstalled), a compiled addon, another lockfile, pnpm', () => {
    const stale = pair('2.1.2');
    expect(ownerHasSame(stale.plan, stale.worktree, stale.owner)).toBe(false);
    const native = pair('2.1.3', { 'node_modules/ms/build/Release/ms.node': 'ELF' });
    expect(ownerHasSame(native.plan, native.worktree, native.owner)).toBe(false);
    const moved = pair('2.1.3');
    writeFileSync(join(moved.owner, 'package-lock.json'), lock('2.1.4'));
    expect(ownerHasSame(moved.plan, moved.worktree, moved.owner)).toBe(false);
    const pnpm = folder({ 'package.json': PKG, 'pnpm-lock.yaml': '' });
    const [plan] = detectEcosystems(pnpm, {});
    expect(ownerHasSame(plan, pnpm, folder({ 'package.json': PKG, 'pnpm-lock.yaml': '', 'node_modules/ms/index.js': '' }))).toBe(false);
  });
});
