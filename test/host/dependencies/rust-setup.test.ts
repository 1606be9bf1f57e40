import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DependencyCache } from '../../../host/dependencies/dependency-cache';
import { dependenciesChanged, prepareDependencies } from '../../../host/dependencies/prepare-dependencies';
import { commandSetup, readSetupState } from '../../../host/dependencies/setup-state';
import { runAgentCommand } from '../../../host/sandbox/run-agent-command';
import { commitProject, writeFiles } from '../../support/projects/real-projects';

/** A crate without dependencies and without Cargo.lock: its lockfile resolves without network. */
const CRATE = {
  'Cargo.toml': '[package]\nname = "plain"\nversion = "0.1.0"\nedition = "2021"\n',
  'src/lib.rs': 'pub fn two() -> u8 {\n    2\n}\n\n#[test]\nfn is_two() {\n    assert_eq!(two(), 2);\n}\n',
};

describe('setting up a Rust crate without Cargo.lock, in the sandbox, with the owner\'s rustup toolchain', () => {
  it('resolves the lockfile once per Cargo.toml, runs cargo from the toolchain\'s own folder, and sets up again only when a manifest changes', async () => {
    const repo = commitProject('plain', CRATE);
    const root = mkdtempSync(join(tmpdir(), 'dex-rust-setup-'));
    const cache = new DependencyCache(join(root, 'cache'));
    const setUp = async (name: string) => {
      const worktree = join(root, name);
      execFileSync('git', ['worktree', 'add', '-q', '--detach', worktree], { cwd: repo });
      const outcome = await prepareDependencies({ worktree, ownerDir: repo, cache, downloads: join(root, 'downloads'), command: { timeoutMs: 120_000 } });
      return { worktree, step: outcome.steps[0] };
    };
    const first = await setUp('a');
    expect(first.step).toMatchObject({ ecosystem: 'rust', source: 'installed' });
    expect(readFileSync(join(first.worktree, 'Cargo.lock'), 'utf8')).toContain('name = "plain"');
    const { readOnlyPaths: toolchainPaths, pathDirs } = commandSetup(first.worktree);
    // rustc's sysroot, never ~/.cargo (which holds credentials.toml) nor rustup's whole home.
    expect(toolchainPaths).toHaveLength(1);
    expect(toolchainPaths[0]).not.toMatch(/\.cargo|\.rustup$/);
    expect(pathDirs).toEqual([join(toolchainPaths[0], 'bin')]);
    const test = await runAgentCommand('cargo test -q 2>&1', first.worktree, undefined, { timeoutMs: 120_000, outputLimitBytes: 64 * 1024 });
    expect(test.exitCode, test.output).toBe(0);
    // The lockfile setup wrote, and the build, are no change of the task's dependencies.
    expect(dependenciesChanged(first.worktree)).toBe(false);
    const second = await setUp('b');
    expect(second.step).toMatchObject({ source: 'cache', key: first.step.key });
    expect(existsSync(join(second.worktree, 'Cargo.lock'))).toBe(true);
    appendFileSync(join(second.worktree, 'Cargo.toml'), '\n[features]\nextra = []\n');
    expect(dependenciesChanged(second.worktree)).toBe(true);
    expect(readSetupState(second.worktree)?.toolchains?.rustSysroot).toBe(toolchainPaths[0]);
  });

  it('a crate the task added to a Go module gets the owner\'s Rust toolchain when verify sets the worktree up again', async () => {
    const repo = commitProject('module', { 'go.mod': 'module example.com/m\n\ngo 1.21\n' });
    const root = mkdtempSync(join(tmpdir(), 'dex-rust-added-'));
    const worktree = join(root, 'wt');
    execFileSync('git', ['worktree', 'add', '-q', '--detach', worktree], { cwd: repo });
    const caches = { cache: new DependencyCache(join(root, 'cache')), downloads: join(root, 'downloads'), command: { timeoutMs: 120_000 } };
    await prepareDependencies({ worktree, ownerDir: repo, ...caches });
    expect(readSetupState(worktree)?.toolchains).not.toHaveProperty('rustSysroot');
    writeFiles(worktree, CRATE);
    expect(dependenciesChanged(worktree)).toBe(true);
    // As verify's refresh does: no owner's checkout at hand.
    const outcome = await prepareDependencies({ worktree, ...caches, update: true });
    expect(outcome.steps.map((step) => [step.ecosystem, step.source])).toEqual([['go', 'cache'], ['rust', 'installed']]);
    const test = await runAgentCommand('cargo test -q 2>&1', worktree, undefined, { timeoutMs: 120_000, outputLimitBytes: 64 * 1024 });
    expect(test.exitCode, test.output).toBe(0);
    expect(dependenciesChanged(worktree)).toBe(false);
  });
});
