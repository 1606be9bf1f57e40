import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TaskResult } from '../../../core/task/task-types';
import { approveSignal } from '../../../core/run/definitions';
import { completionTurn, fixSumTurns } from '../../support/model/cassette-builder';
import { runDex } from '../../support/env/dex-cli';
import { failureOf, useDexEnvironment, waitForGate } from '../../support/env/dex-environment';
import { sampleRepo, taskInput } from '../../support/env/dev-server-env';

// One DEX_HOME for this file's worker and its dex commands: clean sees what the runs left.
const home = mkdtempSync(join(tmpdir(), 'dex-clean-home-'));
const dex = useDexEnvironment({
  server: 'dev',
  queue: 'dex-it-clean',
  dexHome: home,
  cassette: [
    ...fixSumTurns('done'),
    // Verify fails (sum still subtracts) and the cassette has nothing more for it: the task fails.
    completionTurn('fails', { status: 'complete', summary: 'nothing to do' }),
    completionTurn('waits', { status: 'blocked', reason: 'May I change sum?' }),
    ...fixSumTurns('waits'),
    completionTurn('cancelled', { status: 'blocked', reason: 'May I change sum?' }),
  ],
});

const worktree = (run: string) => join(home, 'worktrees', run);
const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' });
const branches = (repo: string) => git(repo, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/').split('\n').filter(Boolean).sort();
const cleanEnv = () => ({ ...dex.cliEnv(), DEX_HOME: home });
const idOf = (taskId: string) => `task-math-${taskId}-1`;

/** Starts task `taskId` on `repo` on this file's worker. */
const startOn = (repo: string, taskId: string) => dex.start('taskWorkflow', idOf(taskId), taskInput(taskId, repo, dex.worker.hostQueue));

/** A worktree on branch dex/<run> as a run of another server (or one this server forgot) leaves it, last changed `ageMs` ago. */
function foreignWorktree(repo: string, run: string, ageMs: number, sessions = false): void {
  git(repo, 'worktree', 'add', '-q', '-b', `dex/${run}`, worktree(run));
  writeFileSync(`${worktree(run)}.base`, `${git(repo, 'rev-parse', 'HEAD').trim()}\n`);
  // A Claude Code session's files beside the worktree (docs/claude-code.md#durable-at-the-message).
  if (sessions) mkdirSync(join(`${worktree(run)}.claude`, 'session-1', 'projects'), { recursive: true });
  const when = new Date(Date.now() - ageMs);
  const admin = join(repo, '.git', 'worktrees', run);
  const inAdmin = readdirSync(admin, { recursive: true, encoding: 'utf8' }).map((f) => join(admin, f));
  for (const path of [worktree(run), `${worktree(run)}.base`, ...(sessions ? [`${worktree(run)}.claude`] : []), admin, ...inAdmin]) utimesSync(path, when, when);
}

/** Everything a clean may change: what is under DEX_HOME/worktrees, the repository's branches and worktrees, the person's checkout. */
function snapshot(repo: string, demoFolder: string) {
  return {
    worktrees: readdirSync(join(home, 'worktrees')).sort(),
    branches: branches(repo),
    gitWorktrees: git(repo, 'worktree', 'list', '--porcelain'),
    checkout: [git(repo, 'rev-parse', '--abbrev-ref', 'HEAD'), git(repo, 'rev-parse', 'HEAD'), git(repo, 'status', '--porcelain', '--untracked-files=all')],
    demo: existsSync(demoFolder),
  };
}

describe('dex clean', () => {
  it('removes what ended runs left, lists it first with --dry-run, and leaves open runs and the person\'s checkout alone', { timeout: 240_000 }, async () => {
    const env = cleanEnv();
    const repo = sampleRepo();
    git(repo, 'branch', 'feature');
    git(repo, 'branch', 'dex/mine');
    writeFileSync(join(repo, 'NOTES.txt'), 'my own notes, not committed\n');

    const done = await startOn(repo, 'done');
    expect((await done.result()).state).toBe('completed');
    await failureOf(await startOn(repo, 'fails'));
    const waits = await startOn(repo, 'waits');
    await waitForGate(waits, 'blocked');
    const cancelled = await startOn(repo, 'cancelled');
    await waitForGate(cancelled, 'blocked');
    await cancelled.cancel();
    await expect(cancelled.result()).rejects.toThrow();
    const demo = await runDex(['demo', '--json'], { env });
    expect(demo.code, demo.stderr).toBe(0);
    const demoFolder = join(JSON.parse(demo.stdout).repo as string, '..');
    foreignWorktree(repo, 'task-math-gone-1', 3 * 86_400_000, true);
    foreignWorktree(repo, 'task-math-recent-1', 0);
    // A roadmap's landing worktree, left by a push that failed; no roadmap is open.
    const landing = worktree('land-roadmap-math-0123abcd-T1');
    git(repo, 'worktree', 'add', '-q', '--detach', landing);

    // Without the server's word on which runs are open, nothing goes.
    const unreachable = await runDex(['clean'], { env: { ...env, TEMPORAL_ADDRESS: '127.0.0.1:1' } });
    expect(unreachable.code).toBe(3);
    expect((await runDex(['clean', 'everything'], { env })).code).toBe(2);

    const before = snapshot(repo, demoFolder);
    expect(before.worktrees).toEqual(expect.arrayContaining([idOf('fails'), idOf('cancelled'), idOf('waits'), `${idOf('done')}.base`]));
    const dry = await runDex(['clean', '--dry-run', '--json'], { env });
    expect(dry.code, dry.stderr).toBe(0);
    const planned = JSON.parse(dry.stdout);
    const leftover = (kind: string, path: string, run?: string, state?: string) => expect.objectContaining({ kind, path, ...(run ? { run } : {}), ...(state ? { state } : {}) });
    const expected = [
      leftover('worktree', worktree(idOf('fails')), idOf('fails'), 'failed'),
      leftover('worktree', worktree(idOf('cancelled')), idOf('cancelled'), 'cancelled'),
      leftover('worktree', worktree('task-math-gone-1'), 'task-math-gone-1', 'forgotten'),
      leftover('worktree', landing, undefined, 'landing'),
      leftover('base', `${worktree(idOf('fails'))}.base`, idOf('fails')),
      leftover('base', `${worktree(idOf('cancelled'))}.base`, idOf('cancelled')),
      leftover('base', `${worktree(idOf('done'))}.base`, idOf('done'), 'completed'),
      leftover('base', `${worktree('task-math-gone-1')}.base`),
      leftover('sessions', `${worktree('task-math-gone-1')}.claude`, 'task-math-gone-1'),
      leftover('branch', `dex/${idOf('fails')}`, idOf('fails')),
      leftover('branch', `dex/${idOf('cancelled')}`, idOf('cancelled')),
      leftover('branch', 'dex/task-math-gone-1', 'task-math-gone-1'),
      leftover('demo', demoFolder),
    ];
    const demoBase = expect.objectContaining({ kind: 'base', state: 'completed' });
    expect(planned).toMatchObject({ dryRun: true, failed: [] });
    expect(planned.leftovers).toEqual(expect.arrayContaining([...expected, demoBase]));
    expect(planned.leftovers).toHaveLength(expected.length + 1);
    expect(planned.kept).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'worktree', run: idOf('waits'), why: 'waiting' }),
        expect.objectContaining({ kind: 'branch', path: `dex/${idOf('waits')}`, why: 'waiting' }),
        expect.objectContaining({ kind: 'base', run: idOf('waits') }),
        expect.objectContaining({ kind: 'worktree', run: 'task-math-recent-1', why: expect.stringMatching(/^unknown to this server, and changed within/) }),
      ]),
    );
    expect(snapshot(repo, demoFolder)).toEqual(before);
    const dryText = await runDex(['clean', '--dry-run'], { env });
    expect(dryText.stdout).toContain(`would remove worktree ${worktree(idOf('fails'))} (${idOf('fails')}, failed)`);
    expect(dryText.stdout).toContain(`would remove branch dex/${idOf('cancelled')} in ${repo} (${idOf('cancelled')}, cancelled)`);
    expect(dryText.stdout).toContain(`kept ${idOf('waits')} (waiting): worktree, base file, branch`);
    expect(dryText.stdout).toMatch(/would remove 14 things: 4 worktrees, 3 branches, 5 base files, 1 Claude Code session folder, 1 demo repository \(--dry-run: nothing was removed\)\n$/);
    expect(snapshot(repo, demoFolder)).toEqual(before);

    const cleaned = await runDex(['clean', '--json'], { env });
    expect(cleaned.code, cleaned.stderr).toBe(0);
    expect(JSON.parse(cleaned.stdout)).toEqual({ ...planned, dryRun: false });
    expect(existsSync(landing)).toBe(false);
    for (const run of [idOf('fails'), idOf('cancelled'), 'task-math-gone-1']) {
      expect(existsSync(worktree(run)), run).toBe(false);
      expect(existsSync(`${worktree(run)}.base`), run).toBe(false);
    }
    expect(existsSync(`${worktree('task-math-gone-1')}.claude`)).toBe(false);
    expect(existsSync(`${worktree(idOf('done'))}.base`)).toBe(false);
    expect(existsSync(demoFolder)).toBe(false);
    const after = snapshot(repo, demoFolder);
    expect(after.worktrees).toEqual(['task-math-recent-1', 'task-math-recent-1.base', idOf('waits'), `${idOf('waits')}.base`]);
    // Only dex's branches of the ended runs went: the person's, the completed run's result and the open runs' stay.
    expect(after.branches).toEqual(['dex/mine', `dex/${idOf('done')}`, 'dex/task-math-recent-1', `dex/${idOf('waits')}`, 'feature', 'main']);
    expect(after.checkout).toEqual(before.checkout);
    expect(after.gitWorktrees).toContain(`worktree ${worktree(idOf('waits'))}`);
    expect(after.gitWorktrees).not.toContain(idOf('fails'));

    const again = await runDex(['clean', '--json'], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ leftovers: [], failed: [] });
    expect((await runDex(['clean'], { env })).stdout).toMatch(/nothing to clean\n$/);

    // The waiting run was not touched: approved, it finishes its work in its worktree.
    await waits.signal(approveSignal, { note: 'yes' });
    const result = (await waits.result()) as TaskResult;
    expect(result.state).toBe('completed');
    expect(git(repo, 'show', `${result.commit}:src/math.js`)).toContain('return a + b;');
  });
});
