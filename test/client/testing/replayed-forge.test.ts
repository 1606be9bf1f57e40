import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordedForge } from '../../../client/requests/forge-recording';
import { replayedForgeActivities } from '../../../client/testing/replayed-forge';
import type { ChecksReport, ForgeTarget } from '../../../core/roadmap/pull-request-types';
import type { DexStore } from '../../../store/dex-store';
import { mockActivityEnv, runActivity } from '../../support/env/mock-activity';

const HOUR = 3_600_000;
const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' }).trim();
const target: ForgeTarget = { forge: 'github', tokenEnv: 'GITHUB_TOKEN', owner: 'acme', repo: 'app' };
const report = (sha: string, state: 'pending' | 'passed'): ChecksReport => ({ sha, checks: [{ name: 'build', state, id: '7' }], missing: [] });

/** A bare remote with main and dex/T1 (one commit ahead), as a replay's remote is after the task's push. */
function remoteWithBranch(): { remote: string; head: string } {
  const work = mkdtempSync(join(tmpdir(), 'dex-replayed-forge-'));
  git(work, 'init', '-q', '-b', 'main');
  writeFileSync(join(work, 'a.txt'), 'a\n');
  git(work, 'add', '-A');
  git(work, 'commit', '-qm', 'base');
  git(work, 'checkout', '-qb', 'dex/T1');
  writeFileSync(join(work, 'b.txt'), 'b\n');
  git(work, 'add', '-A');
  git(work, 'commit', '-qm', 'T1');
  const remote = join(work, 'remote.git');
  git(work, 'clone', '-q', '--bare', work, remote);
  return { remote, head: git(work, 'rev-parse', 'HEAD') };
}

/** A recording: PR #4 opened for dex/T1, its build pending for three hours, then passed, then merged. */
const recorded: RecordedForge = {
  remote: 'origin',
  landing: { forge: 'github', tokenEnv: 'GITHUB_TOKEN', owner: 'acme', repo: 'app', profile: 'auto', fixAttempts: 2, ciTimeoutMinutes: 1440, mergeMethod: 'merge' },
  calls: [
    { activity: 'openPullRequest', atMs: 1000, input: { head: 'dex/T1', base: 'main' }, result: { number: 4, url: 'https://forge/pull/4', head: 'dex/T1', base: 'main', headSha: 'old' } },
    { activity: 'readChecks', atMs: 2000, input: { pr: 4, sha: 'old' }, result: report('old', 'pending') },
    { activity: 'readChecks', atMs: 2000 + HOUR, input: { pr: 4, sha: 'old' }, result: report('old', 'pending') },
    { activity: 'readChecks', atMs: 2000 + 3 * HOUR, input: { pr: 4, sha: 'old' }, result: report('old', 'passed') },
    { activity: 'mergePullRequest', atMs: 3000 + 3 * HOUR, input: { pr: 4, sha: 'old' }, result: { status: 'merged', sha: 'recorded-merge' } },
  ],
  logs: {},
};

describe('the forge of a recorded landing, played back', () => {
  const { remote, head } = remoteWithBranch();
  const forge = replayedForgeActivities(recorded, remote, () => ({}) as DexStore);
  const at = (ms: number) => mockActivityEnv({ scheduledTimestampMs: ms });

  it('answers each read with what the forge had said by the same time after the first read of that push', async () => {
    const pr = await runActivity(forge.openPullRequest, [{ target, head: 'dex/T1', base: 'main', title: 'T1', descriptionPath: '/nowhere' }], at(0));
    expect(pr).toMatchObject({ number: 4, head: 'dex/T1', headSha: head });
    const read = (ms: number) => runActivity(forge.readChecks, [{ target, pr: 4, sha: head }], at(ms)).then((r) => [r.sha, r.checks[0].state]);
    const start = 50 * HOUR;
    expect(await read(start)).toEqual([head, 'pending']);
    expect(await read(start + 2 * HOUR)).toEqual([head, 'pending']);
    expect(await read(start + 3 * HOUR)).toEqual([head, 'passed']);
    // Never back: a later read keeps the last answer.
    expect(await read(start + HOUR)).toEqual([head, 'passed']);
  });

  it('merges for real in the replay\'s remote, once', async () => {
    const merged = await runActivity(forge.mergePullRequest, [{ target, pr: 4, sha: head, method: 'merge', title: 'T1 (#4)' }], at(0));
    expect(merged.status).toBe('merged');
    const sha = (merged as { sha: string }).sha;
    expect(git(remote, 'rev-parse', 'main')).toBe(sha);
    expect(git(remote, 'rev-list', '--parents', '-n1', sha).split(' ').slice(1)).toContain(head);
    expect(await runActivity(forge.mergePullRequest, [{ target, pr: 4, sha: head, method: 'merge', title: 'T1 (#4)' }], at(0))).toEqual(merged);
  });

  it('fails, not retried, when the replay asks what the recording never did', async () => {
    await expect(runActivity(forge.readChecks, [{ target, pr: 9, sha: head }], at(0))).rejects.toMatchObject({
      type: 'ReplayDiverged',
      nonRetryable: true,
      message: 'the replay went another way than the recording: it read the checks of PR #9, which the recording never did',
    });
    await expect(runActivity(forge.readChecks, [{ target, pr: 4, sha: 'a-second-push' }], at(0))).rejects.toThrow(/PR #4 was pushed 2 times; the recording read checks on 1 pushes/);
  });
});
