import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRun } from '../../../client/requests/replay-test-record';
import { completionTurn, toolTurn } from '../../support/model/cassette-builder';
import { runDex } from '../../support/env/dex-cli';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { sampleRepo } from '../../support/env/dev-server-env';
import { roadmapRepo } from '../../support/plans/roadmap-fixture';

// Recordings are made as users make them: on the dev server against a live model (the fake),
// a person answering each gate with `dex approve`/`dex reject`. Replays run on the time-skipping server.
const testEnv = useDexEnvironment({
  server: 'dev',
  cassette: [
    toolTurn('A1', ['write_file', { path: 'NOTES.md', content: 'one\n' }]),
    completionTurn('A1', { status: 'complete', summary: 'notes' }),
    toolTurn('fix-sum', ['edit_file', { path: 'src/math.js', old_string: 'return a - b;', new_string: 'return a + b;' }]),
    completionTurn('fix-sum', { status: 'complete', summary: 'sum adds now' }),
    // The reject with retry rolls the worktree back to the base: the second round fixes sum again, and notes it.
    toolTurn('fix-sum', ['edit_file', { path: 'src/math.js', old_string: 'return a - b;', new_string: 'return a + b;' }], ['write_file', { path: 'NOTES.md', content: 'sum adds now\n' }]),
    completionTurn('fix-sum', { status: 'complete', summary: 'noted' }),
  ],
});

const DAY_GATE = 'gates:\n  afterVerify: { deadline: 24h, defaultAction: approve }\n';

/** Records `args` with a person who answers each gate the run waits at with the next of `answers` (dex approve/reject args). */
async function record(args: string[], cassette: string, answers: string[][]) {
  const env = { ...testEnv.cliEnv(), ANTHROPIC_BASE_URL: testEnv.fake.url, ANTHROPIC_API_KEY: 'test-key' };
  let id: string | undefined;
  const running = runDex([...args, '--llm', `record:${cassette}`], { env, onStderr: (err) => (id ??= /started (\S+)/.exec(err)?.[1]) });
  for (const answer of answers) {
    for (;;) {
      if (id && (await runDex([answer[0], id, ...answer.slice(1)], { env })).code === 0) break;
      await new Promise((r) => setTimeout(r, 300));
    }
  }
  const run = await running;
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(readFileSync(`${cassette}.run.json`, 'utf8')) as RecordedRun;
}

const newFile = (name: string) => join(mkdtempSync(join(tmpdir(), 'dex-ts-replay-')), name);

describe('dex replay-test on the time-skipping server', () => {
  let roadmapCassette: string;
  let taskCassette: string;

  beforeAll(async () => {
    roadmapCassette = newFile('roadmap.cassette.jsonl');
    const repo = roadmapRepo('- [ ] A1: Add notes\n', `verify: ["node --test"]\n${DAY_GATE}`);
    await record(['run', join(repo, 'ROADMAP.md')], roadmapCassette, [['approve', '--note', 'fine']]);
    taskCassette = newFile('fix-sum.cassette.jsonl');
    const taskRepo = sampleRepo();
    // Its own verify kept: without one, the task would now wait at the unverified gate too (docs/real-repositories.md#no-test-command-found).
    writeFileSync(join(taskRepo, 'dex.config.yaml'), `verify: ["node --test"]\n${DAY_GATE}`);
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'add', 'dex.config.yaml'], { cwd: taskRepo });
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'gate'], { cwd: taskRepo });
    await record(['task', 'Fix sum', '--repo', taskRepo], taskCassette, [
      ['reject', '--reason', 'note the change in NOTES.md', '--retry'],
      ['approve'],
    ]);
  }, 180_000);

  it('replays a roadmap whose gate waits 24 h, unanswered, in seconds: its default approves', async () => {
    const started = Date.now();
    const run = await runDex(['replay-test', roadmapCassette, '--json'], { env: testEnv.cliEnv() });
    const wallMs = Date.now() - started;
    expect(run.code, run.stderr).toBe(0);
    const doc = JSON.parse(run.stdout);
    expect(doc).toMatchObject({ same: true, replayed: { state: 'completed' } });
    expect(doc.simulatedMs).toBeGreaterThanOrEqual(24 * 3600_000);
    expect(doc.simulatedMs).toBeLessThan(25 * 3600_000);
    // Time was skipped, not waited: the run's wall time is a tiny part of its simulated day (how fast is bench's business, not a test's).
    expect(doc.wallMs).toBeLessThan(doc.simulatedMs / 1000);
    console.log(`roadmap replay: ${(doc.simulatedMs / 3600_000).toFixed(2)} h simulated, ${(doc.wallMs / 1000).toFixed(1)} s in the run, ${(wallMs / 1000).toFixed(1)} s for the command`);
  });

  it('a people script that rejects with retry, then approves, passes', async () => {
    const script = newFile('people.yaml');
    writeFileSync(
      script,
      [
        'people:',
        '  - reject: after-verify:implement',
        '    reason: note the change in NOTES.md',
        '    retry: true',
        '  - approve: after-verify:implement',
        'expect:',
        '  state: completed',
        '  tasks: { fix-sum: completed }',
        '  maxCostUsd: 1',
        '  promptsContain: note the change in NOTES.md',
        '  sameAsRecorded: true',
        '',
      ].join('\n'),
    );
    const run = await runDex(['replay-test', taskCassette, '--script', script], { env: testEnv.cliEnv() });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/answered: reject after-verify:implement \(fix-sum, retry\): note the change in NOTES\.md/);
    expect(run.stdout).toMatch(/answered: approve after-verify:implement/);
  });

  it('a people script whose expectation fails exits 1 naming the difference', async () => {
    const script = newFile('people.yaml');
    writeFileSync(script, 'people:\n  - approve: after-verify:implement\nexpect:\n  state: completed\n  promptsContain: [ISO weeks]\n  sameAsRecorded: true\n');
    const run = await runDex(['replay-test', taskCassette, '--script', script], { env: testEnv.cliEnv() });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toMatch(/the replay differs from the script's expectations/);
    expect(run.stdout).toMatch(/no prompt contains "ISO weeks"/);
    // The person approved at once: no second round, so NOTES.md is missing from the tree.
    expect(run.stdout).toMatch(/task fix-sum: tree [0-9a-f]{40}, recorded [0-9a-f]{40} \(files differ: [^)]*NOTES\.md/);
  });

  it('a bad script is one line, exit 2, nothing started or left behind', async () => {
    const script = newFile('bad.yaml');
    writeFileSync(script, 'people:\n  - reject: after-verify:implement\n');
    // A temporary folder of the command's own: other test files make and remove copies in the shared one meanwhile.
    const ownTmp = mkdtempSync(join(tmpdir(), 'dex-bad-script-tmp-'));
    const run = await runDex(['replay-test', taskCassette, '--script', script], { env: { ...testEnv.cliEnv(), TMPDIR: ownTmp } });
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toMatch(/^dex: .*bad\.yaml:2:5: a reject needs a `reason`/);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    // tsx keeps its compile cache there (tsx-0); nothing of dex's may be.
    expect(readdirSync(ownTmp).filter((name) => !name.startsWith('tsx-'))).toEqual([]);
    const both = await runDex(['replay-test', taskCassette, '--script', script, '--dev-server'], { env: testEnv.cliEnv() });
    expect(both.code).toBe(2);
    expect(existsSync(script)).toBe(true);
  });
});

