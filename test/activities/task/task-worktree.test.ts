import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { simpleGit } from 'simple-git';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTaskWorktreeActivities } from '../../../activities/task/task-worktree';
import type { DexStore } from '../../../store/dex-store';
import { openSqliteDexStore } from '../../../store/sqlite/sqlite-dex-store';
import { runActivity } from '../../support/env/mock-activity';
import { offlineDeps } from '../../support/projects/offline-deps';

describe('checkpoint activities', () => {
  let dir: string;
  let repo: string;
  let store: DexStore;
  let acts: ReturnType<typeof createTaskWorktreeActivities>;
  let initialSha: string;

  const run = <A extends unknown[], R>(fn: (...args: A) => Promise<R>, ...args: A): Promise<R> => runActivity(fn, args);
  const prepare = (name = 'task-demo-T1-1') =>
    run(acts.prepareWorktree, { repoPath: repo, branch: `dex/${name}`, worktreeName: name });
  const countCommits = async (path: string): Promise<number> => Number(await simpleGit(path).raw(['rev-list', '--count', 'HEAD']));

  beforeEach(async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'dex-checkpoint-')));
    repo = join(dir, 'repo');
    const git = simpleGit(dir);
    await git.init(['repo']);
    const repoGit = simpleGit(repo);
    await repoGit.addConfig('user.name', 'Test Person').addConfig('user.email', 'test@example.com');
    writeFileSync(join(repo, 'README.md'), '# demo\n');
    await repoGit.add('.').commit('initial');
    initialSha = (await repoGit.revparse(['HEAD'])).trim();
    store = openSqliteDexStore(join(dir, 'home', 'dex.db'));
    acts = createTaskWorktreeActivities(offlineDeps(store, join(dir, 'home')));
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('prepares a worktree on a new branch from HEAD, and returns the same one when asked again', async () => {
    const first = await prepare();
    expect(first).toEqual({ path: join(dir, 'home', 'worktrees', 'task-demo-T1-1'), branch: 'dex/task-demo-T1-1', baseSha: initialSha });
    expect(readFileSync(join(first.path, 'README.md'), 'utf8')).toBe('# demo\n');
    expect((await simpleGit(first.path).raw(['branch', '--show-current'])).trim()).toBe('dex/task-demo-T1-1');

    writeFileSync(join(first.path, 'work.txt'), 'in progress');
    await run(acts.commitCheckpoint, { worktreePath: first.path, message: 'step', key: 'k1' });
    // The repository moves on; the worktree's base must not.
    writeFileSync(join(repo, 'other.txt'), 'x');
    await simpleGit(repo).add('.').commit('elsewhere');

    expect(await prepare()).toEqual(first);
    expect(existsSync(join(first.path, 'work.txt'))).toBe(true);
  });

  it('refuses a folder that is not a repository, and a repository without commits, non-retryably', async () => {
    const notRepo = join(dir, 'plain');
    const empty = join(dir, 'empty');
    await simpleGit(dir).init(['empty']);
    mkdirSync(notRepo);
    for (const repoPath of [notRepo, empty, join(dir, 'missing')]) {
      const failure = await run(acts.prepareWorktree, { repoPath, branch: 'dex/x', worktreeName: 'x' }).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(ApplicationFailure);
      expect(failure).toMatchObject({ type: 'InvalidRepository', nonRetryable: true });
    }
  });

  it('refuses a worktree name that is a path, a bad branch name, and a folder in the way', async () => {
    const attempt = (worktreeName: string, branch: string) =>
      run(acts.prepareWorktree, { repoPath: repo, branch, worktreeName }).catch((e: unknown) => e);
    expect(await attempt('../escape', 'dex/ok')).toMatchObject({ type: 'InvalidWorktreeName', nonRetryable: true });
    expect(await attempt('ok', 'dex/bad..name')).toMatchObject({ type: 'InvalidBranch', nonRetryable: true });
    mkdirSync(join(dir, 'home', 'worktrees', 'occupied'), { recursive: true });
    expect(await attempt('occupied', 'dex/occupied')).toMatchObject({ type: 'WorktreeConflict', nonRetryable: true });
    await prepare('taken');
    expect(await attempt('taken', 'dex/other')).toMatchObject({ type: 'WorktreeConflict', nonRetryable: true });
  });

  it('commits a checkpoint once per key, with the trailer', async () => {
    const wt = await prepare();
    writeFileSync(join(wt.path, 'sum.js'), 'module.exports = (a, b) => a + b;\n');
    const first = await run(acts.commitCheckpoint, { worktreePath: wt.path, message: 'T1: add sum', key: 'task-demo-T1-1/implement' });
    expect(first.created).toBe(true);
    expect(await countCommits(wt.path)).toBe(2);
    const body = await simpleGit(wt.path).raw(['log', '-1', '--format=%B']);
    expect(body).toContain('T1: add sum');
    expect(body).toContain('Dex-Checkpoint: task-demo-T1-1/implement');
    expect(await simpleGit(wt.path).raw(['status', '--porcelain'])).toBe('');

    writeFileSync(join(wt.path, 'later.txt'), 'more');
    const again = await run(acts.commitCheckpoint, { worktreePath: wt.path, message: 'T1: add sum', key: 'task-demo-T1-1/implement' });
    expect(again).toEqual({ sha: first.sha, created: false });
    expect(await countCommits(wt.path)).toBe(2);
  });

  it('commits even when nothing changed, and keys that share a prefix stay apart', async () => {
    const wt = await prepare();
    const a = await run(acts.commitCheckpoint, { worktreePath: wt.path, message: 'empty', key: 'run/phase-1' });
    const b = await run(acts.commitCheckpoint, { worktreePath: wt.path, message: 'empty', key: 'run/phase' });
    expect(a.created && b.created).toBe(true);
    expect(a.sha).not.toBe(b.sha);
    expect(await countCommits(wt.path)).toBe(3);
  });

  it('commits as dex when the repository names no committer', async () => {
    const wt = await prepare();
    await simpleGit(repo).raw(['config', '--unset', 'user.name']);
    await simpleGit(repo).raw(['config', '--unset', 'user.email']);
    // simple-git drops ambient GIT_* variables, so the user's own config is hidden by moving HOME.
    const saved = { home: process.env.HOME, xdg: process.env.XDG_CONFIG_HOME };
    process.env.HOME = join(dir, 'empty-home');
    process.env.XDG_CONFIG_HOME = join(dir, 'empty-home', '.config');
    try {
      expect(await simpleGit(wt.path).raw(['config', '--get', 'user.name'])).toBe('');
      const { sha } = await run(acts.commitCheckpoint, { worktreePath: wt.path, message: 'anonymous', key: 'k' });
      expect((await simpleGit(wt.path).raw(['log', '-1', '--format=%an <%ae>', sha])).trim()).toBe('dex <dex@localhost>');
    } finally {
      for (const [name, value] of [['HOME', saved.home], ['XDG_CONFIG_HOME', saved.xdg]] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it('rolls back to a commit, leaving a clean status', async () => {
    const wt = await prepare();
    writeFileSync(join(wt.path, 'kept.txt'), 'kept');
    const { sha } = await run(acts.commitCheckpoint, { worktreePath: wt.path, message: 'keep', key: 'k' });
    writeFileSync(join(wt.path, 'kept.txt'), 'changed');
    writeFileSync(join(wt.path, 'README.md'), 'scribbled');
    writeFileSync(join(wt.path, 'untracked.txt'), 'junk');
    await run(acts.rollbackWorktree, { worktreePath: wt.path, sha });
    expect(await simpleGit(wt.path).raw(['status', '--porcelain'])).toBe('');
    expect(readFileSync(join(wt.path, 'kept.txt'), 'utf8')).toBe('kept');
    expect(existsSync(join(wt.path, 'untracked.txt'))).toBe(false);

    await run(acts.rollbackWorktree, { worktreePath: wt.path, sha: wt.baseSha });
    expect(existsSync(join(wt.path, 'kept.txt'))).toBe(false);
    expect(await simpleGit(wt.path).raw(['status', '--porcelain'])).toBe('');
  });

  it('removes the worktree but keeps its branch, and a second removal is fine', async () => {
    const wt = await prepare();
    writeFileSync(join(wt.path, 'dirty.txt'), 'uncommitted');
    await run(acts.removeWorktree, { repoPath: repo, worktreePath: wt.path });
    expect(existsSync(wt.path)).toBe(false);
    expect(await simpleGit(repo).raw(['worktree', 'list', '--porcelain'])).not.toContain(wt.path);
    expect((await simpleGit(repo).raw(['branch', '--list', wt.branch])).trim()).toContain(wt.branch);
    await run(acts.removeWorktree, { repoPath: repo, worktreePath: wt.path });
  });

  it('prepares again after removal, on the kept branch with the same base', async () => {
    const wt = await prepare();
    const { sha } = await run(acts.commitCheckpoint, { worktreePath: wt.path, message: 'one', key: 'k' });
    await run(acts.removeWorktree, { repoPath: repo, worktreePath: wt.path });
    expect(await prepare()).toEqual(wt);
    expect((await simpleGit(wt.path).revparse(['HEAD'])).trim()).toBe(sha);
  });
});
