import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DexStore } from '../../../store/dex-store';
import { openSqliteDexStore } from '../../../store/sqlite/sqlite-dex-store';
import { createVerifyActivities, tailOf, type VerifyInput } from '../../../activities/verify/verify';
import { mockActivityEnv, runActivity } from '../../support/env/mock-activity';
import { offlineDeps } from '../../support/projects/offline-deps';

describe('verify', () => {
  let dir: string;
  let worktree: string;
  let store: DexStore;
  let activities: ReturnType<typeof createVerifyActivities>;

  beforeEach(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'dex-verify-')));
    worktree = join(dir, 'wt');
    mkdirSync(worktree);
    store = openSqliteDexStore(join(dir, 'store.db'));
    activities = createVerifyActivities(offlineDeps(store, dir));
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const input = (commands: string[], artifactId: string, timeoutMs = 10_000): VerifyInput => ({
    worktreePath: worktree,
    commands,
    timeoutMs,
    artifactId,
  });

  it('passes when every command exits 0, in the worktree, and stores the report', async () => {
    writeFileSync(join(worktree, 'marker.txt'), 'here');
    const result = await runActivity(activities.verify, [input(['cat marker.txt', 'echo second'], 'v-pass')]);
    expect(result).toMatchObject({ passed: true, artifactId: 'v-pass', tail: '' });
    expect(result.commands.map((c) => [c.command, c.exitCode, c.timedOut])).toEqual([
      ['cat marker.txt', 0, false],
      ['echo second', 0, false],
    ]);
    const report = await store.getArtifact('v-pass');
    expect(report?.kind).toBe('verify');
    expect(report?.content).toContain('Verification passed: 2 commands.');
    expect(report?.content).toContain('$ cat marker.txt\n(exit code 0');
    expect(report?.content).toContain('here');
  });

  it('passes with no commands', async () => {
    const result = await runActivity(activities.verify, [input([], 'v-none')]);
    expect(result).toEqual({ passed: true, artifactId: 'v-none', commands: [], tail: '' });
  });

  it('stops at the first failing command and returns the tail of its output', async () => {
    const result = await runActivity(activities.verify, [
      input(['echo fine', 'seq 1 100; echo "1 test failed" >&2; exit 1', 'touch never-ran'], 'v-fail'),
    ]);
    expect(result.passed).toBe(false);
    expect(result.commands.map((c) => c.exitCode)).toEqual([0, 1]);
    const lines = result.tail.split('\n');
    expect(lines).toHaveLength(30);
    expect(lines.at(-1)).toBe('1 test failed');
    expect(lines[0]).toBe('72');
    expect((await store.getArtifact('v-fail'))?.content).toContain('Verification failed at command 2 of 3.');
    expect((await store.getArtifact('v-fail'))?.content).toContain('\n1\n2\n3\n');
    expect(existsSync(join(worktree, 'never-ran'))).toBe(false);
  });

  it('says what made it fail, from the whole output when its tail has lost it', async () => {
    const result = await runActivity(activities.verify, [input(['echo "Error: boom early" >&2; seq 1 100; exit 1'], 'v-cause')]);
    expect(result.tail).not.toContain('boom');
    expect(result.cause).toBe('Error: boom early');
    const silent = await runActivity(activities.verify, [input(['exit 3'], 'v-silent')]);
    expect(silent.cause).toBe('exit code 3');
  });

  it("runs the project's checks after the tests, every one even when a test failed, and reports each on its own", async () => {
    const checks = [
      { name: 'lint', command: 'echo "src/a.js:3:1: error  no-console" >&2; exit 1' },
      { name: 'build', command: 'echo built > built.txt' },
    ];
    const onlyChecks = await runActivity(activities.verify, [{ ...input(['echo tests ok'], 'v-checks'), checks }]);
    expect(onlyChecks).toMatchObject({ passed: false, testsPassed: true, cause: 'lint: src/a.js:3:1: error  no-console' });
    expect(onlyChecks.checks).toEqual([
      { ...checks[0], passed: false, cause: 'src/a.js:3:1: error  no-console' },
      { ...checks[1], passed: true },
    ]);
    const report = (await store.getArtifact('v-checks'))?.content ?? '';
    expect(report).toContain('Verification failed. Tests passed: 1 command.');
    expect(report).toContain("Checks (the project's own, besides its tests): lint failed · build passed.");
    expect(report).toContain('(check: lint)');

    const both = await runActivity(activities.verify, [{ ...input(['echo "Error: test broke"; exit 1', 'touch never-ran'], 'v-both'), checks }]);
    expect(both).toMatchObject({ passed: false, testsPassed: false, cause: 'Error: test broke' });
    expect(both.checks?.map((c) => c.passed)).toEqual([false, true]);
    expect(existsSync(join(worktree, 'never-ran'))).toBe(false);
    expect(existsSync(join(worktree, 'built.txt'))).toBe(true);
  });

  it('kills a command that runs too long and fails', async () => {
    const started = Date.now();
    const result = await runActivity(activities.verify, [input(['echo waiting; sleep 30'], 'v-slow', 300)]);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result.passed).toBe(false);
    expect(result.commands[0]).toMatchObject({ exitCode: null, timedOut: true });
    expect(result.tail).toBe('waiting');
    expect(result.cause).toBe('timed out');
    expect((await store.getArtifact('v-slow'))?.content).toContain('(timed out,');
  });

  it('heartbeats while a command runs', async () => {
    const env = mockActivityEnv({ heartbeatTimeoutMs: 60 });
    env.on('heartbeat', () => writeFileSync(join(worktree, 'go'), ''));
    // Finishes only after a heartbeat was sent.
    const result = await runActivity(activities.verify, [input(['while [ ! -f go ]; do sleep 0.01; done'], 'v-beat')], env);
    expect(result.passed).toBe(true);
  });

  it('returns the stored result on a retried attempt without running the commands again', async () => {
    const first = await runActivity(activities.verify, [input(['echo run >> runs.txt; cat runs.txt'], 'v-retry')]);
    const again = await runActivity(activities.verify, [input(['echo run >> runs.txt; cat runs.txt'], 'v-retry')], mockActivityEnv({ attempt: 2 }));
    expect(again).toEqual(first);
    expect(readFileSync(join(worktree, 'runs.txt'), 'utf8')).toBe('run\n');
  });

  it('kills the running command when the activity is cancelled and stores no report', async () => {
    const env = mockActivityEnv();
    const running = runActivity(activities.verify, [input(['touch started; sleep 30'], 'v-cancel')], env);
    await expect.poll(() => existsSync(join(worktree, 'started'))).toBe(true);
    env.cancel();
    await expect(running).rejects.toMatchObject({ name: 'CancelledFailure' });
    expect(await store.getArtifact('v-cancel')).toBeUndefined();
  });

  it('fails non-retryably when the worktree is gone', async () => {
    const failure = await runActivity(activities.verify, [{ ...input(['true'], 'v-gone'), worktreePath: join(dir, 'gone') }]).catch(
      (e: unknown) => e,
    );
    expect(failure).toMatchObject({ type: 'WorktreeMissing', nonRetryable: true });
  });

  it('keeps the last 2,000 characters of very long lines in the tail', () => {
    expect(tailOf('x'.repeat(5000))).toHaveLength(2000);
  });
});
