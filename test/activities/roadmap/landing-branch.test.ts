import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLandingBranchActivities, proposalMarkdown, type ProposalText } from '../../../activities/roadmap/landing-branch';
import { ZERO_USAGE } from '../../../core/run/usage';
import type { DexStore } from '../../../store/dex-store';
import { openSqliteDexStore } from '../../../store/sqlite/sqlite-dex-store';
import { bareRemote } from '../../support/plans/landing-fixture';
import { runActivity } from '../../support/env/mock-activity';
import { offlineDeps } from '../../support/projects/offline-deps';

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' }).trim();

describe('branch-mode landing activities', () => {
  let dir: string;
  let repo: string;
  let remote: string;
  let store: DexStore;
  let acts: ReturnType<typeof createLandingBranchActivities>;
  const push = () => runActivity(acts.pushProposal, [{ repoPath: repo, remote: 'origin', taskBranch: 'dex/task-T1', proposedBranch: 'dex/T1' }]);
  const commit = (file: string) => {
    writeFileSync(join(repo, file), `${file}\n`);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', file);
    return git(repo, 'rev-parse', 'HEAD');
  };

  beforeEach(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'dex-land-branch-')));
    repo = join(dir, 'repo');
    execFileSync('git', ['init', '-q', '-b', 'main', repo]);
    commit('README.md');
    remote = bareRemote(repo);
    git(repo, 'checkout', '-q', '-b', 'dex/task-T1');
    store = openSqliteDexStore(join(dir, 'home', 'dex.db'));
    acts = createLandingBranchActivities(offlineDeps(store, join(dir, 'home')));
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('pushes without force: again at the same commit, and a fast-forward after a re-finalize, both succeed', async () => {
    const first = commit('a.txt');
    expect(await push()).toEqual({ status: 'pushed', sha: first });
    expect(await push()).toEqual({ status: 'pushed', sha: first });
    const second = commit('b.txt');
    expect(await push()).toEqual({ status: 'pushed', sha: second });
    expect(git(remote, 'rev-parse', 'dex/T1')).toBe(second);
  });

  it('refuses to overwrite a dex/<task> branch that is not this task history', async () => {
    git(repo, 'checkout', '-q', '-b', 'someone-else', 'main');
    const foreign = commit('theirs.txt');
    git(repo, 'push', '-q', 'origin', 'someone-else:dex/T1');
    git(repo, 'checkout', '-q', 'dex/task-T1');
    commit('a.txt');
    const pushed = await push();
    expect(pushed.status).toBe('failed');
    expect(pushed.status === 'failed' && pushed.reason).toContain(`it is at ${foreign.slice(0, 12)}`);
    expect(git(remote, 'rev-parse', 'dex/T1')).toBe(foreign);
  });

  it('writes the description with pre-existing failures, the same on a retry', async () => {
    const text: ProposalText = {
      key: 'roadmap-x-1/T1', taskId: 'T1', title: 'Add one', summary: 'added one', remote: 'origin', targetBranch: 'main',
      proposedBranch: 'dex/T1', sha: 'a'.repeat(40), targetHead: 'b'.repeat(40), preExistingFailures: ['test/old.test.js'],
      costUsd: 0.0123, tokens: { ...ZERO_USAGE, input: 100, output: 20 },
    };
    const { descriptionPath } = await runActivity(acts.describeProposal, [text]);
    expect(readFileSync(descriptionPath, 'utf8')).toBe(proposalMarkdown(text));
    expect(proposalMarkdown(text)).toContain('  - test/old.test.js');
    expect(proposalMarkdown(text)).toContain('$0.0123 USD');
    expect(proposalMarkdown(text)).toContain('120 tokens');
    await runActivity(acts.describeProposal, [{ ...text, costUsd: 9 }]);
    expect(readFileSync(descriptionPath, 'utf8')).toContain('$0.0123 USD');
    // A task no test command was found for never says it passed (docs/real-repositories.md#no-test-command-found).
    const untested = proposalMarkdown({ ...text, preExistingFailures: undefined, unverifiedApprovedBy: 'ana' });
    expect(untested).toContain('- verify: **none found**: no test command ran on this change; ana let it through the `unverified` gate');
    expect(untested).not.toContain('passed');
  });

  it("says which attempt of a best-of-N task it is and why, with every attempt's row; nothing of it for any other task (docs/attempts.md)", () => {
    const text: ProposalText = {
      key: 'roadmap-x-1/T1', taskId: 'T1', title: 'Add one', remote: 'origin', targetBranch: 'main', proposedBranch: 'dex/T1',
      sha: 'a'.repeat(40), targetHead: 'b'.repeat(40), costUsd: 0.8, tokens: ZERO_USAGE, checks: 'lint passed',
    };
    expect(proposalMarkdown(text)).not.toContain('attempts');
    const evidence = { passed: true, testsFixed: ['adds'], testsBroken: [], checksFailed: [], lines: 14, files: 1 };
    const attempts = [
      { name: 'A', workflowId: 'task-T1-A', state: 'failed' as const, costUsd: 0.3 },
      { name: 'B', workflowId: 'task-T1-B', state: 'completed' as const, costUsd: 0.5, evidence, score: 8.8 },
    ];
    const chosen = { name: 'B', by: 'evidence', reason: '2 tried, 1 passed, chose B: all tests pass, 1 fixed, 14 lines, $0.5000' };
    const lines = proposalMarkdown({ ...text, attempts, chosen }).split('\n');
    const at = lines.indexOf('- checks: lint passed');
    expect(lines.slice(at + 1, at + 7)).toEqual([
      '- attempts: 2 tried, 1 passed, chose B: all tests pass, 1 fixed, 14 lines, $0.5000',
      '',
      '| attempt | state | variant | tests | checks | lines | review | cost | score |',
      '|---|---|---|---|---|---|---|---|---|',
      '| A | failed | as configured | — | — | — | — | $0.3000 | — |',
      '| **B** chosen | completed | as configured | pass, 1 fixed | pass | 14 | — | $0.5000 | 8.8 |',
    ]);
    expect(lines[at + 7]).toBe('');
  });

  it('runs the landCommand once per landing; a failure is an outcome with its output tail, and runs again', async () => {
    const count = join(dir, 'count');
    const input = { key: 'roadmap-x-1/T1', repoPath: repo, env: { DEX_BRANCH: 'dex/T1' }, command: `echo x >> '${count}'; echo "$DEX_BRANCH"; echo https://pr/1` };
    expect(await runActivity(acts.runLandCommand, [input])).toEqual({ status: 'ran', lastLine: 'https://pr/1' });
    expect(await runActivity(acts.runLandCommand, [input])).toEqual({ status: 'ran', lastLine: 'https://pr/1' });
    expect(readFileSync(count, 'utf8')).toBe('x\n');

    const failing = { ...input, key: 'roadmap-x-1/T2', command: `echo x >> '${count}'; echo 'remote: no such repo' >&2; exit 3` };
    const outcome = await runActivity(acts.runLandCommand, [failing]);
    expect(outcome).toEqual({ status: 'failed', reason: 'landCommand failed (exit code 3): remote: no such repo' });
    await runActivity(acts.runLandCommand, [failing]);
    expect(readFileSync(count, 'utf8')).toBe('x\nx\nx\n');
  });
});
