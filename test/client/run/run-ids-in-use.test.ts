// Which numbered run ids dex passes over though the server would give them again (docs/interfaces.md#plans-workflows-and-ids):
// one the store keeps records of (a phase, a transcript, an artifact), one whose worktree or base file is still in DEX_HOME, one whose branch the
// repository still has; all on a real SQLite store, real files and a real git repository.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withRunIdsInUse } from '../../../client/run/run-ids-in-use';
import { readSettings } from '../../../client/settings';
import { withStore } from '../../../client/command-store';
import { phase } from '../../support/store/store-contract-fixtures';

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, stdio: 'pipe' });

function repository(): string {
  const repo = mkdtempSync(join(tmpdir(), 'dex-ids-repo-'));
  git(repo, 'init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'a.txt'), 'a\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-qm', 'first');
  return repo;
}

const ids = ['task-math-fix-1', 'task-math-fix-2', 'task-math-fix-3', 'task-math-fix-4', 'task-math-fix-5', 'task-math-fix-6', 'task-math-fix-7'];
const inUseOf = (settings: ReturnType<typeof readSettings>, repo: string | undefined) =>
  withRunIdsInUse(settings, repo, async (inUse) => Promise.all(ids.map(inUse)));

describe('run ids still in use on this host', () => {
  it("passes over an id the store, DEX_HOME's worktrees or the repository's branches still hold", async () => {
    const home = mkdtempSync(join(tmpdir(), 'dex-ids-home-'));
    const settings = readSettings({ DEX_HOME: home });
    const repo = repository();
    await withStore(home, async (store) => {
      await store.recordPhase(phase('task-math-fix-1/implement', 'task-math-fix-1'));
      await store.appendMessage('task-math-fix-2/implement/1', 1, 'user', 'the old run asked this');
      // A sheet's shell statement keeps only its outcome: a run reusing the id would take it for its own and not run.
      await store.putArtifact('task-math-fix-6/s1/do/outcome', 'sheet-outcome', '{"value":"yesterday"}');
    });
    mkdirSync(join(home, 'worktrees', 'task-math-fix-3'), { recursive: true });
    writeFileSync(join(home, 'worktrees', 'task-math-fix-4.base'), `${'a'.repeat(40)}\n`);
    git(repo, 'branch', 'dex/task-math-fix-5');

    expect(await inUseOf(settings, repo)).toEqual([true, true, true, true, true, true, false]);
    // A layer or sheet has no repository: its branches are not asked.
    expect(await inUseOf(settings, undefined)).toEqual([true, true, true, true, false, true, false]);
  });

  it('on a host whose store was never made, asks its files only and makes no store', async () => {
    const home = mkdtempSync(join(tmpdir(), 'dex-ids-home-'));
    mkdirSync(join(home, 'worktrees'));
    writeFileSync(join(home, 'worktrees', 'task-math-fix-1.base'), 'x\n');
    expect(await inUseOf(readSettings({ DEX_HOME: home }), undefined)).toEqual([true, false, false, false, false, false, false]);
    expect(existsSync(join(home, 'dex.db'))).toBe(false);
  });
});
