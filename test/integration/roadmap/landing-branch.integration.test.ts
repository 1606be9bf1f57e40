import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatUsd } from '../../../core/text/spending';
import type { RoadmapResult } from '../../../core/roadmap/roadmap-types';
import { completionTurn, toolTurn } from '../../support/model/cassette-builder';
import { useDexEnvironment, waitForGate } from '../../support/env/dex-environment';
import { bareRemote } from '../../support/plans/landing-fixture';
import { roadmapRepo, startRoadmap, subjects } from '../../support/plans/roadmap-fixture';

const ONE = 'exports.one = () => 1;\n';
const TEST = "const test = require('node:test');\nconst assert = require('node:assert');\ntest('one', () => assert.strictEqual(require('../src/shared').one(), 1));\n";

const dex = useDexEnvironment({
  server: 'dev',
  cassette: [
    toolTurn('B1', ['write_file', { path: 'src/shared.js', content: ONE }], ['write_file', { path: 'test/one.test.js', content: TEST }]),
    completionTurn('B1', { status: 'complete', summary: 'added one to src/shared.js' }),
    toolTurn('B2', ['write_file', { path: 'src/shared.js', content: ONE }]),
    completionTurn('B2', { status: 'complete', summary: 'added one' }),
  ],
  queue: 'dex-it-landing-branch',
});

const git = (repo: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=o', '-c', 'user.email=o@o', ...args], { cwd: repo, encoding: 'utf8' });

/** Pushes a commit of another person's to `remote`'s main (src/other.js); returns its sha. */
function pushOther(remote: string): string {
  const clone = join(mkdtempSync(join(tmpdir(), 'dex-other-')), 'clone');
  execFileSync('git', ['clone', '-q', remote, clone]);
  writeFileSync(join(clone, 'src', 'other.js'), 'exports.other = () => 3;\n');
  git(clone, 'add', '-A');
  git(clone, 'commit', '-q', '-m', 'other: add src/other.js');
  git(clone, 'push', '-q', 'origin', 'HEAD:main');
  return git(clone, 'rev-parse', 'HEAD').trim();
}

describe('proposing on a remote (land.mode: branch), on a real dev server', () => {
  it('pushes dex/<task>, leaves the remote base alone, writes the description and runs the landCommand once', async () => {
    const seen = join(mkdtempSync(join(tmpdir(), 'dex-land-command-')), 'env.txt');
    // The owner's command: keeps its environment, warns on stderr, prints progress, then the URL last.
    const command = `env | grep '^DEX_' | sort >> '${seen}'; echo 'a warning' >&2; echo 'opening a pull request'; echo https://forge.example/acme/app/pull/7`;
    const repo = roadmapRepo('- [ ] B1: Add one to src/shared.js\n', `verify: ["node --test"]\nland: { remote: origin, mode: branch }\nlandCommand: "${command.replace(/"/g, '\\"')}"\n`);
    const remote = bareRemote(repo);
    // The remote's main is ahead of the checkout the task starts from: the proposal must be finalized onto it.
    const other = pushOther(remote);
    const baseBefore = git(remote, 'rev-parse', 'main').trim();
    const checkoutBefore = git(repo, 'rev-parse', 'main').trim();
    const { handle } = await startRoadmap(dex, repo);
    dex.recordHistory(handle.workflowId, 'roadmap-workflow-proposal.json');
    const result = (await handle.result()) as RoadmapResult;
    const [task] = result.tasks;
    expect([task.id, task.state]).toEqual(['B1', 'completed']);

    // The remote has dex/B1 at the task's commit; its main, and the owner's checkout, are as they were.
    expect(git(remote, 'rev-parse', 'dex/B1').trim()).toBe(task.commit);
    expect(git(remote, 'show', 'dex/B1:src/shared.js')).toBe(ONE);
    expect(git(remote, 'rev-parse', 'main').trim()).toBe(baseBefore);
    expect(git(repo, 'rev-parse', 'main').trim()).toBe(checkoutBefore);
    expect(subjects(remote).some((s) => s.startsWith('dex: land'))).toBe(false);
    // Finalized onto the remote's main (a clean merge, verified, no model call), so it merges cleanly.
    expect(git(remote, 'merge-base', '--is-ancestor', other, 'dex/B1')).toBe('');
    expect(subjects(remote, 'dex/B1').filter((s) => s.startsWith('dex(B1): finalize: merge origin/main'))).toHaveLength(1);
    // Nothing landed, so the box is not ticked anywhere, the proposal's branch included.
    expect(git(remote, 'show', 'dex/B1:ROADMAP.md')).toContain('- [ ] B1');

    // Proposed, not landed: where, the description, and the landCommand's last stdout line.
    expect(task.proposed).toMatchObject({ remote: 'origin', branch: 'dex/B1', target: 'main', commandOutput: 'https://forge.example/acme/app/pull/7' });
    const description = readFileSync(task.proposed!.descriptionPath, 'utf8');
    expect(description).toContain('# B1: Add one to src/shared.js');
    expect(description).toContain('added one to src/shared.js');
    expect(description).toContain('verify: passed on the merged tree');
    expect(description).toContain(`${formatUsd(task.costUsd)} USD`);
    expect(description).toMatch(/\d+ tokens \(input \d+/);
    expect(task.costUsd).toBeGreaterThan(0);

    // The command ran once, in the owner's repository, with the landing's environment.
    const lines = readFileSync(seen, 'utf8').trim().split('\n');
    expect(lines.filter((l) => l.startsWith('DEX_TASK_ID='))).toHaveLength(1);
    const env = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
    expect(env).toMatchObject({
      DEX_BASE_BRANCH: 'main',
      DEX_BRANCH: 'dex/B1',
      DEX_DESCRIPTION_FILE: task.proposed!.descriptionPath,
      DEX_REMOTE: 'origin',
      DEX_RUN_ID: handle.workflowId,
      DEX_TASK_ID: 'B1',
      DEX_TITLE: 'Add one to src/shared.js',
    });
  });

  it('a failing landCommand waits at the merge gate with its output tail; approved, it runs again', async () => {
    const flag = join(mkdtempSync(join(tmpdir(), 'dex-land-flag-')), 'failed-once');
    const command = `if [ ! -e '${flag}' ]; then touch '${flag}'; echo 'gh: not logged in' >&2; exit 1; fi; echo https://forge.example/pull/8`;
    const repo = roadmapRepo('- [ ] B2: Add one to src/shared.js\n', `verify: ["node --test"]\nland: { remote: origin, mode: branch }\nlandCommand: "${command}"\n`);
    const remote = bareRemote(repo);
    const { handle } = await startRoadmap(dex, repo);
    const waiting = await waitForGate(handle, { gate: 'merge', taskId: 'B2' });
    expect(waiting.waitingFor?.reason).toBe('landCommand failed (exit code 1): gh: not logged in');
    expect(git(remote, 'rev-parse', 'dex/B2').trim()).toMatch(/^[0-9a-f]{40}$/);
    await handle.signal('approve', {});
    const result = (await handle.result()) as RoadmapResult;
    expect(result.tasks[0]).toMatchObject({ id: 'B2', state: 'completed', proposed: { branch: 'dex/B2', commandOutput: 'https://forge.example/pull/8' } });
  });
});
