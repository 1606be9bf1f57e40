// Trees deeper than PATH_MAX, as a task's command can make them: dex's own walk, commit, rollback
// and removal must still work, or fail clearly (docs/security.md#bounded-paths).
import { ApplicationFailure } from '@temporalio/common';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleGit } from 'simple-git';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTaskWorktreeActivities } from '../../../activities/task/task-worktree';
import { removeWorktree as cleanRemoveWorktree } from '../../../client/clean/clean-removal';
import { FAILURE } from '../../../core/run/failure-types';
import { removeTree } from '../../../host/worktree/remove-tree';
import { PATH_BYTES_LIMIT, PATH_DEPTH_LIMIT } from '../../../host/worktree/worktree-paths';
import { scanWorktree } from '../../../host/worktree/worktree-scan';
import type { DexStore } from '../../../store/dex-store';
import { openSqliteDexStore } from '../../../store/sqlite/sqlite-dex-store';
import { runActivity } from '../../support/env/mock-activity';
import { offlineDeps } from '../../support/projects/offline-deps';

/** Folders a command nests in the report. */
const LEVELS = 3000;

/**
 * Makes `at` a chain of `levels` folders named `d` (below `at` itself) with `bottom.txt` in the
 * deepest, built from the bottom up in `scratch` so that no path this process names passes PATH_MAX.
 */
function deepTree(at: string, levels: number, scratch: string): void {
  let top = mkdtempSync(join(scratch, 'piece-'));
  writeFileSync(join(top, 'bottom.txt'), 'at the bottom\n');
  for (let built = 1; built < levels; ) {
    const n = Math.min(400, levels - built);
    const chain = mkdtempSync(join(scratch, 'piece-'));
    const bottom = join(chain, ...Array<string>(n - 1).fill('d'));
    mkdirSync(bottom, { recursive: true });
    renameSync(top, join(bottom, 'd'));
    top = chain;
    built += n;
  }
  renameSync(top, at);
}

let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'dex-deep-')));
});
afterEach(async () => {
  await removeTree(dir);
});

describe('removeTree', () => {
  it(`removes a tree ${LEVELS} folders deep that fs.rm cannot, read-only folders in it too`, async () => {
    const tree = join(dir, 'tree');
    deepTree(tree, LEVELS, dir);
    chmodSync(join(tree, 'd', 'd'), 0o500);
    await expect(rm(tree, { recursive: true, force: true })).rejects.toThrow();
    await removeTree(tree);
    expect(existsSync(tree)).toBe(false);
    // Plain trees, files and what is not there go as well.
    mkdirSync(join(dir, 'plain', 'a'), { recursive: true });
    await removeTree(join(dir, 'plain'));
    await removeTree(join(dir, 'nothing'));
    expect(existsSync(join(dir, 'plain'))).toBe(false);
  }, 60_000);
});

describe('scanWorktree', () => {
  it('finds the first path past the limits on each way down, and walks no further', async () => {
    deepTree(join(dir, 'd'), LEVELS, dir);
    mkdirSync(join(dir, 'deps', 'd'.repeat(200), 'd'.repeat(200), 'd'.repeat(200), 'd'.repeat(200), 'd'.repeat(200)), { recursive: true });
    const longName = `${'n'.repeat(250)}/`.repeat(4) + 'n'.repeat(40);
    mkdirSync(join(dir, longName), { recursive: true });
    mkdirSync(join(dir, 'sub', '.GIT'), { recursive: true });
    const scan = await scanWorktree(dir, ['deps']);
    expect(scan.nestedGit).toEqual(['sub/.GIT']);
    expect(scan.beyondLimits).toEqual([Array<string>(PATH_DEPTH_LIMIT + 1).fill('d').join('/'), longName]);
    expect(Buffer.byteLength(longName)).toBeGreaterThan(PATH_BYTES_LIMIT);
  }, 60_000);
});

describe('a worktree holding a tree a command nested past PATH_MAX', () => {
  let store: DexStore;
  let repo: string;
  let acts: ReturnType<typeof createTaskWorktreeActivities>;
  const run = <A extends unknown[], R>(fn: (...args: A) => Promise<R>, ...args: A): Promise<R> => runActivity(fn, args);

  beforeEach(async () => {
    repo = join(dir, 'repo');
    await simpleGit(dir).init(['repo']);
    const git = simpleGit(repo);
    await git.addConfig('user.name', 'Test Person').addConfig('user.email', 'test@example.com');
    writeFileSync(join(repo, 'README.md'), '# demo\n');
    writeFileSync(join(repo, '.gitignore'), 'build/\n');
    await git.add('.').commit('initial');
    store = openSqliteDexStore(join(dir, 'home', 'dex.db'));
    acts = createTaskWorktreeActivities(offlineDeps(store, join(dir, 'home')));
  });
  afterEach(() => store.close());

  const prepare = () => run(acts.prepareWorktree, { repoPath: repo, branch: 'dex/task-deep-1', worktreeName: 'task-deep-1' });

  it('refuses to commit it (non-retryably, naming it), rolls it back, and removes the worktree', async () => {
    const wt = await prepare();
    writeFileSync(join(wt.path, 'work.txt'), 'the work\n');
    deepTree(join(wt.path, 'd'), LEVELS, dir);
    const failure = await run(acts.commitCheckpoint, { worktreePath: wt.path, message: 'step', key: 'k1' }).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: FAILURE.PathBeyondLimits, nonRetryable: true });
    expect((failure as Error).message).toMatch(/^the worktree holds a path deeper than 64 folders or longer than 1024 bytes \("(d\/){40}…"\); dex does not commit such paths$/);
    // The control: plain git cannot clean it up.
    expect(() => execFileSync('git', ['clean', '-ffd'], { cwd: wt.path, stdio: 'ignore' })).toThrow();

    await run(acts.rollbackWorktree, { worktreePath: wt.path, sha: wt.baseSha });
    expect(existsSync(join(wt.path, 'd'))).toBe(false);
    expect(existsSync(join(wt.path, 'work.txt'))).toBe(false);
    expect(await simpleGit(wt.path).raw(['status', '--porcelain'])).toBe('');

    deepTree(join(wt.path, 'd'), LEVELS, dir);
    await run(acts.removeWorktree, { repoPath: repo, worktreePath: wt.path });
    expect(existsSync(wt.path)).toBe(false);
    expect(await simpleGit(repo).raw(['worktree', 'list', '--porcelain'])).not.toContain(wt.path);
  }, 120_000);

  it('removes what a removal git began and could not finish left, when asked again', async () => {
    const wt = await prepare();
    deepTree(join(wt.path, 'd'), LEVELS, dir);
    // The control: git's own removal fails, having forgotten the worktree and taken its `.git`.
    await expect(simpleGit(repo).raw(['worktree', 'remove', '--force', wt.path])).rejects.toThrow(/too long/);
    expect(existsSync(join(wt.path, 'd'))).toBe(true);
    await run(acts.removeWorktree, { repoPath: repo, worktreePath: wt.path });
    expect(existsSync(wt.path)).toBe(false);
    expect(await prepare()).toEqual(wt);
  }, 120_000);

  it('commits beside an ignored deep tree, and dex clean removes the worktree it is in', async () => {
    const wt = await prepare();
    writeFileSync(join(wt.path, 'work.txt'), 'the work\n');
    mkdirSync(join(wt.path, 'build'));
    deepTree(join(wt.path, 'build', 'd'), LEVELS, dir);
    const { created } = await run(acts.commitCheckpoint, { worktreePath: wt.path, message: 'step', key: 'k1' });
    expect(created).toBe(true);
    expect(await simpleGit(wt.path).raw(['show', '--name-only', '--format=', 'HEAD'])).toBe('work.txt\n');

    await cleanRemoveWorktree(wt.path, join(repo, '.git'));
    expect(existsSync(wt.path)).toBe(false);
    expect(await simpleGit(repo).raw(['worktree', 'list', '--porcelain'])).not.toContain(wt.path);
  }, 120_000);
});
