import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTaskWorktreeActivities } from '../../../activities/task/task-worktree';
import { dexGitSync } from '../../../host/git/dex-git';
import { createLandingActivities } from '../../../activities/roadmap/landing';
import type { DexStore } from '../../../store/dex-store';
import { openSqliteDexStore } from '../../../store/sqlite/sqlite-dex-store';
import { worktreeFingerprint } from '../../../host/worktree/worktree-fingerprint';
import { runActivity } from '../../support/env/mock-activity';
import { offlineDeps } from '../../support/projects/offline-deps';
import { plainGit } from '../../support/env/plain-git';

/** Every hook git (and git-p4, send-email, receive-pack) knows of: none of them may run. */
const HOOKS = [
  'applypatch-msg', 'pre-applypatch', 'post-applypatch', 'pre-commit', 'pre-merge-commit', 'prepare-commit-msg',
  'commit-msg', 'post-commit', 'pre-rebase', 'post-checkout', 'post-merge', 'pre-push', 'pre-receive', 'update',
  'proc-receive', 'post-receive', 'post-update', 'reference-transaction', 'push-to-checkout', 'pre-auto-gc',
  'post-rewrite', 'sendemail-validate', 'fsmonitor-watchman', 'p4-changelist', 'p4-prepare-changelist',
  'p4-post-changelist', 'p4-pre-submit', 'post-index-change',
];

const ROADMAP = '# Roadmap\n\n- [ ] T1: Change the readme\n';


/** A script that records, in the markers folder, that `label` ran (and with which API key). */
function markerScript(path: string, markers: string, label: string): void {
  writeFileSync(path, `#!/bin/sh\necho "$ANTHROPIC_API_KEY" > '${markers}/${label}'\nexit 0\n`);
  chmodSync(path, 0o755);
}

/** Plants every hook in `<gitDir>/hooks` and in `hooksPath`, and points the config's hooksPath and fsmonitor at traps. */
function armRepository(gitDir: string, hooksPath: string, markers: string, label: string): void {
  mkdirSync(join(gitDir, 'hooks'), { recursive: true });
  mkdirSync(hooksPath, { recursive: true });
  for (const hook of HOOKS) {
    markerScript(join(gitDir, 'hooks', hook), markers, `${label}-dot-git-hooks-${hook}`);
    markerScript(join(hooksPath, hook), markers, `${label}-hooks-path-${hook}`);
  }
  const fsmonitor = join(hooksPath, '..', `${label}-fsmonitor.sh`);
  markerScript(fsmonitor, markers, `${label}-fsmonitor`);
  plainGit(gitDir, 'config', '--file', join(gitDir, 'config'), 'core.hooksPath', hooksPath);
  plainGit(gitDir, 'config', '--file', join(gitDir, 'config'), 'core.fsmonitor', fsmonitor);
}

describe("dex's git runs none of the repository's code", () => {
  let dir: string;
  let repo: string;
  let markers: string;
  let store: DexStore;
  let checkpoints: ReturnType<typeof createTaskWorktreeActivities>;
  let roadmap: ReturnType<typeof createLandingActivities>;
  const savedKey = process.env.ANTHROPIC_API_KEY;

  const run = <A extends unknown[], R>(fn: (...args: A) => Promise<R>, ...args: A): Promise<R> => runActivity(fn, args);
  const prepare = (name = 'task-T1') => run(checkpoints.prepareWorktree, { repoPath: repo, branch: `dex/${name}`, worktreeName: name });
  const fired = (): string[] => readdirSync(markers).sort();

  /** A repository of its own at `<worktree>/<at>`, armed like the owner's. */
  function plantNestedRepository(worktree: string, at: string): void {
    const nested = join(worktree, at);
    mkdirSync(nested, { recursive: true });
    plainGit(nested, 'init', '-q');
    writeFileSync(join(nested, 'inner.txt'), 'inner\n');
    plainGit(nested, 'add', '-A');
    plainGit(nested, 'commit', '-q', '--no-verify', '-m', 'inner');
    armRepository(join(nested, '.git'), join(dir, `nested-hooks-${at.replace(/\W/g, '-')}`), markers, `nested-${at.replace(/\W/g, '-')}`);
  }

  beforeEach(() => {
    process.env.ANTHROPIC_API_KEY = 'sk-secret';
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'dex-git-hooks-')));
    repo = join(dir, 'repo');
    markers = join(dir, 'markers');
    mkdirSync(markers);
    mkdirSync(join(repo, '.github', 'workflows'), { recursive: true });
    writeFileSync(join(repo, 'README.md'), '# demo\n');
    writeFileSync(join(repo, 'ROADMAP.md'), ROADMAP);
    writeFileSync(join(repo, 'dex.config.yaml'), 'maxIterations: 10\n');
    writeFileSync(join(repo, '.github', 'workflows', 'ci.yml'), 'on: push\n');
    plainGit(repo, 'init', '-q', '-b', 'main');
    plainGit(repo, 'config', 'user.name', 'Test Person');
    plainGit(repo, 'config', 'user.email', 'test@example.com');
    plainGit(repo, 'add', '-A');
    plainGit(repo, 'commit', '-q', '-m', 'initial');
    armRepository(join(repo, '.git'), join(dir, 'owner-hooks'), markers, 'owner');
    store = openSqliteDexStore(join(dir, 'home', 'dex.db'));
    const deps = offlineDeps(store, join(dir, 'home'));
    checkpoints = createTaskWorktreeActivities(deps);
    roadmap = createLandingActivities(deps);
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
    if (savedKey === undefined) delete process.env.ANTHROPIC_API_KEY;
    else process.env.ANTHROPIC_API_KEY = savedKey;
  });

  it('prepares, refuses a nested repository, commits, rolls back, fingerprints, lands and removes without one hook', async () => {
    const wt = await prepare();
    expect(fired()).toEqual([]);

    writeFileSync(join(wt.path, 'README.md'), '# demo, changed\n');
    plantNestedRepository(wt.path, 'sub');
    // The fingerprint's status and diff must not start the nested repository's fsmonitor either.
    await worktreeFingerprint(wt.path);
    const refusal = await run(checkpoints.commitCheckpoint, { worktreePath: wt.path, message: 'T1', key: 'T1/implement' }).catch(
      (e: unknown) => e,
    );
    expect(refusal).toMatchObject({
      type: 'NestedGitRepository',
      nonRetryable: true,
      message: 'the worktree holds a nested git repository at sub/.git; dex does not commit nested repositories',
    });
    expect(dexGitSync(wt.path, ['rev-parse', 'HEAD']).trim()).toBe(wt.baseSha);

    rmSync(join(wt.path, 'sub'), { recursive: true, force: true });
    const commit = await run(checkpoints.commitCheckpoint, { worktreePath: wt.path, message: 'T1', key: 'T1/implement' });
    expect(commit.created).toBe(true);
    writeFileSync(join(wt.path, 'scratch.txt'), 'junk\n');
    const before = await worktreeFingerprint(wt.path);
    await run(checkpoints.rollbackWorktree, { worktreePath: wt.path, sha: commit.sha });
    expect(await worktreeFingerprint(wt.path)).not.toBe(before);

    const land = { repoPath: repo, baseBranch: 'main', branch: wt.branch, roadmapFile: 'ROADMAP.md', taskId: 'T1', title: 'Change the readme', key: 'T1' };
    const merged = await run(roadmap.mergeTaskBranch, land);
    expect(merged).toMatchObject({ status: 'merged' });
    expect(readFileSync(join(repo, 'README.md'), 'utf8')).toBe('# demo, changed\n');
    expect(readFileSync(join(repo, 'ROADMAP.md'), 'utf8')).toContain('- [x] T1:');
    expect(await run(roadmap.mergeTaskBranch, land)).toEqual(merged);

    await run(checkpoints.removeWorktree, { repoPath: repo, worktreePath: wt.path });
    expect(existsSync(wt.path)).toBe(false);
    expect(fired()).toEqual([]);

    // The control: the same repository under plain git does run its traps, with the worker's key.
    plainGit(repo, 'status', '--porcelain');
    plainGit(repo, 'commit', '--allow-empty', '-q', '-m', 'control');
    expect(fired()).toEqual(expect.arrayContaining(['owner-fsmonitor', 'owner-hooks-path-pre-commit']));
    expect(readFileSync(join(markers, 'owner-hooks-path-pre-commit'), 'utf8').trim()).toBe('sk-secret');
  });

  it('rolls back a nested repository away (clean -ffd), running none of its code', async () => {
    const wt = await prepare();
    const { sha } = await run(checkpoints.commitCheckpoint, { worktreePath: wt.path, message: 'start', key: 'k' });
    plantNestedRepository(wt.path, 'sub');
    plantNestedRepository(wt.path, 'deep/er');
    await run(checkpoints.rollbackWorktree, { worktreePath: wt.path, sha });
    expect(existsSync(join(wt.path, 'sub'))).toBe(false);
    expect(existsSync(join(wt.path, 'deep'))).toBe(false);
    expect(dexGitSync(wt.path, ['status', '--porcelain', '--untracked-files=all'])).toBe('');
    expect(fired()).toEqual([]);

    // The control: the nested repository was armed, and plain git in it springs the trap.
    plantNestedRepository(wt.path, 'sub');
    plainGit(join(wt.path, 'sub'), 'status', '--porcelain');
    expect(fired()).toContain('nested-sub-fsmonitor');
  });

  it("runs nothing of a repository planted at a submodule's path, where git would otherwise look inside", async () => {
    // A gitlink `lib` in the owner's history: status and diff start a git inside `lib/` when it is a repository.
    const inner = dexGitSync(repo, ['rev-parse', 'HEAD']).trim();
    plainGit(repo, '-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', 'update-index', '--add', '--cacheinfo', `160000,${inner},lib`);
    plainGit(repo, '-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', 'commit', '-q', '-m', 'a submodule');
    const wt = await prepare();
    expect(readdirSync(join(wt.path, 'lib'))).toEqual([]);
    plantNestedRepository(wt.path, 'lib');
    writeFileSync(join(wt.path, 'lib', 'inner.txt'), 'dirty\n');

    await worktreeFingerprint(wt.path);
    const refusal = await run(checkpoints.commitCheckpoint, { worktreePath: wt.path, message: 'x', key: 'k' }).catch((e: unknown) => e);
    expect(refusal).toMatchObject({ type: 'NestedGitRepository' });
    await run(checkpoints.rollbackWorktree, { worktreePath: wt.path, sha: wt.baseSha });
    await run(checkpoints.removeWorktree, { repoPath: repo, worktreePath: wt.path });
    expect(existsSync(wt.path)).toBe(false);
    expect(fired()).toEqual([]);

    // The control: plain git's status does look inside, and springs the planted repository's trap.
    const again = await prepare('task-T1-control');
    plantNestedRepository(again.path, 'lib');
    writeFileSync(join(again.path, 'lib', 'inner.txt'), 'dirty\n');
    plainGit(again.path, 'status', '--porcelain');
    expect(fired()).toEqual(expect.arrayContaining(['owner-fsmonitor', 'nested-lib-fsmonitor']));
  });

  it('finds a nested .git in any letter case, as a file too, at any depth, and never through a symbolic link', async () => {
    const wt = await prepare();
    mkdirSync(join(wt.path, 'A', '.GIT'), { recursive: true });
    mkdirSync(join(wt.path, 'a', 'b'), { recursive: true });
    writeFileSync(join(wt.path, 'a', 'b', '.git'), 'gitdir: /elsewhere\n');
    const outside = join(dir, 'outside');
    mkdirSync(join(outside, '.git'), { recursive: true });
    symlinkSync(outside, join(wt.path, 'link'));
    const refusal = await run(checkpoints.commitCheckpoint, { worktreePath: wt.path, message: 'x', key: 'k' }).catch((e: unknown) => e);
    expect(refusal).toMatchObject({
      type: 'NestedGitRepository',
      message: 'the worktree holds a nested git repository at A/.GIT, a/b/.git; dex does not commit nested repositories',
    });

    rmSync(join(wt.path, 'A'), { recursive: true });
    rmSync(join(wt.path, 'a'), { recursive: true });
    // A link to a folder holding a repository is committed as a link; its target is not entered.
    expect(await run(checkpoints.commitCheckpoint, { worktreePath: wt.path, message: 'x', key: 'k' })).toMatchObject({ created: true });
    expect(fired()).toEqual([]);
  });

  it('does not commit changes to protected paths unless allowed, and reports them', async () => {
    const protectedPaths = ['dex.config.yaml', '.github/workflows/**'];
    const wt = await prepare();
    const head = () => dexGitSync(wt.path, ['rev-parse', 'HEAD']).trim();
    writeFileSync(join(wt.path, 'dex.config.yaml'), 'maxIterations: 1000\n');
    writeFileSync(join(wt.path, '.github', 'workflows', 'ci.yml'), 'on: push\njobs: {}\n');
    writeFileSync(join(wt.path, 'ordinary.txt'), 'fine\n');
    mkdirSync(join(wt.path, 'nested'));
    writeFileSync(join(wt.path, 'nested', 'dex.config.yaml'), 'not the root one\n');

    const checkpoint = (key: string, allowProtected?: boolean) =>
      run(checkpoints.commitCheckpoint, { worktreePath: wt.path, message: key, key, protectedPaths, allowProtected });
    expect(await checkpoint('k1')).toEqual({ sha: '', created: false, protectedChanges: ['.github/workflows/ci.yml', 'dex.config.yaml'] });
    expect(head()).toBe(wt.baseSha);
    // Nothing was undone: the change is still there for whoever decides.
    expect(readFileSync(join(wt.path, 'dex.config.yaml'), 'utf8')).toBe('maxIterations: 1000\n');

    const allowed = await checkpoint('k1', true);
    expect(allowed).toMatchObject({ created: true });
    expect(allowed.protectedChanges).toBeUndefined();
    expect(dexGitSync(wt.path, ['show', '--name-only', '--format=', 'HEAD']).split('\n').filter(Boolean).sort()).toEqual([
      '.github/workflows/ci.yml', 'dex.config.yaml', 'nested/dex.config.yaml', 'ordinary.txt',
    ]);
    // A key already committed is found first, whatever the worktree holds now.
    writeFileSync(join(wt.path, 'dex.config.yaml'), 'maxIterations: 1\n');
    expect(await checkpoint('k1')).toEqual({ sha: allowed.sha, created: false });
    await run(checkpoints.rollbackWorktree, { worktreePath: wt.path, sha: allowed.sha });

    // A rename out of a protected folder (staged), a deletion, and a new untracked file in one.
    dexGitSync(wt.path, ['mv', '.github/workflows/ci.yml', 'ci-moved.yml']);
    rmSync(join(wt.path, 'dex.config.yaml'));
    writeFileSync(join(wt.path, '.github', 'workflows', 'new.yml'), 'on: pull_request\n');
    expect(await checkpoint('k2')).toEqual({
      sha: '',
      created: false,
      protectedChanges: ['.github/workflows/ci.yml', '.github/workflows/new.yml', 'dex.config.yaml'],
    });
    await run(checkpoints.rollbackWorktree, { worktreePath: wt.path, sha: allowed.sha });

    // A rename into a protected folder reports where it lands; ordinary changes commit as ever.
    dexGitSync(wt.path, ['mv', 'ordinary.txt', '.github/workflows/ordinary.yml']);
    expect(await checkpoint('k3')).toEqual({ sha: '', created: false, protectedChanges: ['.github/workflows/ordinary.yml'] });
    await run(checkpoints.rollbackWorktree, { worktreePath: wt.path, sha: allowed.sha });
    writeFileSync(join(wt.path, 'ordinary.txt'), 'changed\n');
    expect(await checkpoint('k4')).toMatchObject({ created: true });
    expect(fired()).toEqual([]);
  });
});
