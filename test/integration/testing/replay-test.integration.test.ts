import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRun } from '../../../client/requests/replay-test-record';
import { completionTurn, parsedResponses, toolTurn } from '../../support/model/cassette-builder';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { sampleRepo } from '../../support/env/dev-server-env';
import { roadmapRepo } from '../../support/plans/roadmap-fixture';
import { runDex } from '../../support/env/dex-cli';

// What the fake Anthropic server answers the recorded run with, as a live model would.
const testEnv = useDexEnvironment({
  server: 'dev',
  cassette: [
    toolTurn('*', ['read_file', { path: 'src/math.js' }]),
    toolTurn('*', ['write_file', { path: 'NOTES.md', content: 'sum adds now\n' }]),
    toolTurn('*', ['edit_file', { path: 'src/math.js', old_string: 'return a - b;', new_string: 'return a + b;' }]),
    completionTurn('*', { status: 'complete', summary: 'sum adds now' }),
    // The roadmap's, taken once the task's `*` lines are used up.
    toolTurn('A1', ['write_file', { path: 'NOTES.md', content: 'one\n' }]),
    completionTurn('A1', { status: 'complete', summary: 'notes' }),
    toolTurn('A2', ['write_file', { path: 'MORE.md', content: 'two\n' }]),
    completionTurn('A2', { status: 'complete', summary: 'more notes' }),
  ],
});

const git = (repo: string, ...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();

describe('dex replay-test: a recorded run turned into a test', () => {
  let repo: string;
  let cassette: string;
  let startCommit: string;

  beforeAll(async () => {
    repo = sampleRepo();
    startCommit = git(repo, 'rev-parse', 'HEAD');
    cassette = join(mkdtempSync(join(tmpdir(), 'dex-record-')), 'fix-sum.cassette.jsonl');
    const live = { ...testEnv.cliEnv(), ANTHROPIC_BASE_URL: testEnv.fake.url, ANTHROPIC_API_KEY: 'test-key' };
    const run = await runDex(['task', 'Fix sum', '--repo', repo, '--llm', `record:${cassette}`], { env: live });
    expect(run.code, run.stderr).toBe(0);
  });

  it('records every live response with its call key, and the run in a sidecar', () => {
    const lines = parsedResponses(readFileSync(cassette, 'utf8'), cassette);
    expect(lines).toHaveLength(4);
    expect(lines.every((l) => l.task === 'fix-sum' && l.phase === 'implement' && /#\d+$/.test(l.call ?? ''))).toBe(true);
    expect(lines[1].response.content).toEqual([expect.objectContaining({ type: 'tool_use', name: 'write_file', input: { path: 'NOTES.md', content: 'sum adds now\n' } })]);
    expect(lines[1].response).toMatchObject({ stop_reason: 'tool_use', model: 'claude-sonnet-4-6', usage: { input_tokens: expect.any(Number) } });
    const sidecar = JSON.parse(readFileSync(`${cassette}.run.json`, 'utf8')) as RecordedRun;
    expect(sidecar).toMatchObject({ version: 1, kind: 'task', repo, startCommit, task: { title: 'Fix sum' }, end: { state: 'completed' } });
    expect(sidecar.end.tasks).toEqual([{ id: 'fix-sum', state: 'completed', tree: expect.stringMatching(/^[0-9a-f]{40}$/) }]);
  });

  it('replays to the same state and tree: exit 0 (--dev-server: on the dev server, in real time)', async () => {
    const run = await runDex(['replay-test', cassette, '--json', '--dev-server'], { env: testEnv.cliEnv() });
    expect(run.code, run.stderr).toBe(0);
    const doc = JSON.parse(run.stdout);
    expect(doc).toMatchObject({ same: true, differences: [], replayed: { state: 'completed' } });
    expect(doc.replayed.tasks).toEqual(doc.recorded.tasks);
    // The copy starts where the recording did; the owner's repository is untouched.
    expect(git(doc.copy, 'rev-parse', 'main~0^{tree}')).toBe(git(repo, 'rev-parse', `${startCommit}^{tree}`));
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(startCommit);
  });

  it('a response edited after recording makes the replay differ: exit 1, naming the task and the file', async () => {
    const edited = join(mkdtempSync(join(tmpdir(), 'dex-edited-')), 'edited.cassette.jsonl');
    const text = readFileSync(cassette, 'utf8').replace('"content":"sum adds now\\n"', '"content":"sum subtracts\\n"');
    expect(text).not.toBe(readFileSync(cassette, 'utf8'));
    writeFileSync(edited, text);
    copyFileSync(`${cassette}.run.json`, `${edited}.run.json`);
    const run = await runDex(['replay-test', edited], { env: testEnv.cliEnv() });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toMatch(/the replay differs from the recording/);
    expect(run.stdout).toMatch(/task fix-sum: tree [0-9a-f]{40}, recorded [0-9a-f]{40} \(files differ: NOTES\.md\)/);
  });

  it('bad input exits 2 with one line and starts nothing', async () => {
    const lone = join(mkdtempSync(join(tmpdir(), 'dex-lone-')), 'lone.jsonl');
    copyFileSync(cassette, lone);
    const noSidecar = await runDex(['replay-test', lone], { env: testEnv.cliEnv() });
    expect(noSidecar.code).toBe(2);
    expect(noSidecar.stderr).toMatch(/lone\.jsonl\.run\.json not found: record the run with --llm record:/);
    const again = await runDex(['task', 'Fix sum', '--repo', repo, '--llm', `record:${cassette}`], { env: { ...testEnv.cliEnv(), ANTHROPIC_API_KEY: 'k' } });
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already has lines: record to a new file/);
    expect(existsSync(`${lone}.lock`)).toBe(false);
  });
});

describe('dex replay-test of a recorded roadmap', () => {
  it('replays each task and the landed branch to the same trees: exit 0', async () => {
    const repo = roadmapRepo('- [ ] A1: Add notes\n- [ ] A2: More notes (depends: A1)\n', 'verify: ["node --test"]\n');
    const cassette = join(mkdtempSync(join(tmpdir(), 'dex-record-')), 'roadmap.cassette.jsonl');
    const live = { ...testEnv.cliEnv(), ANTHROPIC_BASE_URL: testEnv.fake.url, ANTHROPIC_API_KEY: 'test-key' };
    const recorded = await runDex(['run', join(repo, 'ROADMAP.md'), '--llm', `record:${cassette}`], { env: live });
    expect(recorded.code, recorded.stderr).toBe(0);
    const sidecar = JSON.parse(readFileSync(`${cassette}.run.json`, 'utf8')) as RecordedRun;
    expect(sidecar).toMatchObject({ kind: 'roadmap', roadmap: 'ROADMAP.md', branch: 'main', end: { state: 'completed' } });
    expect(sidecar.end.tasks.map((t) => t.id)).toEqual(['A1', 'A2']);
    expect(sidecar.end.branchTree).toBe(git(repo, 'rev-parse', 'main^{tree}'));

    const run = await runDex(['replay-test', cassette, '--json'], { env: testEnv.cliEnv() });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ same: true, replayed: { branchTree: sidecar.end.branchTree } });
  });
});
