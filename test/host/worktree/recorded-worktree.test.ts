import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { taskBranch, taskStateRef } from '../../../core/run/ids';
import { dexGit } from '../../../host/git/dex-git';
import { followRecordedBranch } from '../../../host/worktree/recorded-worktree';
import { plainGit } from '../../support/env/plain-git';

// A fleet task's later run on a worker whose mirror has its branch missing or behind starts where the
// run last recorded it on the forge's hidden ref (docs/fleet.md#a-roadmap-on-a-forge-repository).

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A repository with commits c1 ← c2 on main, and a recorded state on `run`'s hidden ref whose parent is c2. */
function repository(run: string) {
  const dir = mkdtempSync(join(tmpdir(), 'dex-recorded-'));
  dirs.push(dir);
  const git = (...args: string[]) => plainGit(dir, ...args).trim();
  git('init', '-q', '-b', 'main');
  git('commit', '-q', '--allow-empty', '-m', 'c1');
  const c1 = git('rev-parse', 'HEAD');
  git('commit', '-q', '--allow-empty', '-m', 'c2');
  const c2 = git('rev-parse', 'HEAD');
  const state = git('commit-tree', 'HEAD^{tree}', '-p', c2, '-m', 'state');
  git('update-ref', taskStateRef(run), state);
  return { dir, git, c1, c2 };
}

describe('followRecordedBranch', () => {
  it('makes a missing branch, and moves one left behind, to the recorded state\'s parent', async () => {
    const { dir, git, c1, c2 } = repository('task-a');
    await followRecordedBranch(dexGit(dir), taskBranch('task-a'));
    expect(git('rev-parse', taskBranch('task-a'))).toBe(c2);
    git('branch', '-f', taskBranch('task-a'), c1);
    await followRecordedBranch(dexGit(dir), taskBranch('task-a'));
    expect(git('rev-parse', taskBranch('task-a'))).toBe(c2);
  });

  it('leaves a branch with no recorded state as it is, and makes none', async () => {
    const { dir, git, c1 } = repository('task-a');
    git('branch', taskBranch('task-b'), c1);
    await followRecordedBranch(dexGit(dir), taskBranch('task-b'));
    expect(git('rev-parse', taskBranch('task-b'))).toBe(c1);
    await followRecordedBranch(dexGit(dir), taskBranch('task-c'));
    expect(git('branch', '--list', taskBranch('task-c'))).toBe('');
  });
});
