// `dex replay-test` of a sheet with a task statement (docs/testing-your-flows.md#layers-and-sheets): recorded
// as users record, on the dev server against a live model (the fake), its plan approved and its task's work
// rejected once; replayed on the time-skipping server on a copy of the repository, with nobody answering
// (its tree differs: the task went round once) and with a people script that answers as the recording did.
import type { WorkflowHandle } from '@temporalio/client';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RecordedSheet } from '../../../client/requests/recorded-plans';
import type { RunStatus } from '../../../core/run/run-types';
import { runDex } from '../../support/env/dex-cli';
import { useDexEnvironment, waitForGate } from '../../support/env/dex-environment';

const testEnv = useDexEnvironment({ server: 'dev', cassette: join(__dirname, '..', '..', 'fixtures', 'flows', 'notes-sheet.cassette.jsonl') });

const REASON = 'say what sum() of nothing is';
const newDir = (name: string) => mkdtempSync(join(tmpdir(), `dex-ts-replay-sheet-${name}-`));

/** A repository with a sheet whose one statement is a task; the task's work waits a day for a person after verify. */
function notesSheet(): { repo: string; sheet: string; git: (...args: string[]) => string } {
  const repo = join(newDir('repo'), 'notes');
  mkdirSync(repo);
  const sheet = join(repo, 'notes.sheet.yaml');
  writeFileSync(sheet, 'name: notes\nstatements:\n  - { id: write-notes, run: task, title: Write NOTES.md about sum, as: "@sha" }\n');
  writeFileSync(join(repo, 'dex.config.yaml'), 'verify: ["grep -q sum NOTES.md"]\ngates:\n  afterVerify: { deadline: 24h, defaultAction: approve }\n');
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=me', '-c', 'user.email=me@example.com', ...args], { cwd: repo, encoding: 'utf8' }).trim();
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-qm', 'sheet');
  return { repo, sheet, git };
}

/** Sends `decision` to the gate `handle` waits at once it waits at `gate` anew (not at the wait `after` names). */
async function answer(handle: WorkflowHandle, gate: string, decision: Record<string, unknown>, after?: string): Promise<string> {
  for (;;) {
    const { waitingFor } = await waitForGate<RunStatus>(handle, gate);
    if (waitingFor!.since !== after) {
      await handle.executeUpdate('decide', { args: [{ by: 'ana', ...decision }] });
      return waitingFor!.since;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const script = (lines: string[]) => {
  const file = join(newDir('script'), 'people.yaml');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
};

describe('dex replay-test of a sheet with a task statement', () => {
  let notes: ReturnType<typeof notesSheet>;
  let cassette: string;
  let recorded: RecordedSheet;

  beforeAll(async () => {
    notes = notesSheet();
    cassette = join(newDir('cassette'), 'notes.cassette.jsonl');
    const env = { ...testEnv.cliEnv(), ANTHROPIC_BASE_URL: testEnv.fake.url, ANTHROPIC_API_KEY: 'test-key' };
    const run = runDex(['sheet', notes.sheet, '--confirm', '--llm', `record:${cassette}`], { env });
    // The person who records: approves the plan, rejects the task's first work with a reason, approves its second.
    const sheet = testEnv.client.workflow.getHandle('sheet-notes-1');
    await answer(sheet, 'plan', { action: 'approve' });
    const task = testEnv.client.workflow.getHandle('sheet-notes-1-write-notes');
    const first = await answer(task, 'after-verify:implement', { action: 'reject', reason: REASON, retry: true });
    await answer(task, 'after-verify:implement', { action: 'approve' }, first);
    const ended = await run;
    expect(ended.code, ended.stdout + ended.stderr).toBe(0);
    recorded = JSON.parse(readFileSync(`${cassette}.run.json`, 'utf8')) as RecordedSheet;
  }, 180_000);

  it("keeps where the task's repository started, and the tree of the commit its task made", () => {
    expect(recorded.repos).toEqual([{ path: notes.repo, branch: 'main', startCommit: notes.git('rev-parse', 'HEAD') }]);
    const [statement] = recorded.end.statements;
    expect(statement).toMatchObject({ id: 'write-notes', status: 'success', tree: notes.git('rev-parse', `${statement.value}^{tree}`) });
    expect(notes.git('show', `${statement.value}:NOTES.md`)).toContain('sum() is 0');
  });

  it("with nobody answering, the task's gate passes by its deadline: its tree differs, named, and the repository gets no commit", async () => {
    const branches = notes.git('branch', '--list');
    const run = await runDex(['replay-test', cassette, '--json'], { env: testEnv.cliEnv() });
    expect(run.code, run.stdout + run.stderr).toBe(1);
    const doc = JSON.parse(run.stdout) as { differences: string[]; simulatedMs: number; wallMs: number; copies: string[] };
    expect(doc.differences).toEqual([expect.stringMatching(/^statement write-notes: tree [0-9a-f]{40}, recorded [0-9a-f]{40} \(files differ: NOTES\.md\)$/)]);
    expect(doc.simulatedMs).toBeGreaterThanOrEqual(24 * 3600_000);
    expect(doc.copies).toEqual([expect.stringMatching(/\/notes$/)]);
    expect(notes.git('branch', '--list')).toBe(branches);
    console.log(`sheet replay, nobody answering: ${(doc.simulatedMs / 3600_000).toFixed(2)} h simulated in ${(doc.wallMs / 1000).toFixed(1)} s wall`);
  });

  it("a people script answers the plan and the task statement's gate as the recording did, and its expect holds", async () => {
    const people = script([
      'people:',
      '  - approve: plan',
      '  - reject: after-verify:implement',
      '    task: write-notes',
      `    reason: ${REASON}`,
      '    retry: true',
      '  - approve: after-verify:implement',
      '    task: write-notes',
      'expect:',
      '  state: completed',
      '  tasks: { write-notes: success }',
      `  promptsContain: ["${REASON}"]`,
      '  sameAsRecorded: true',
    ]);
    const run = await runDex(['replay-test', cassette, '--script', people, '--json'], { env: testEnv.cliEnv() });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const doc = JSON.parse(run.stdout) as { answered: string[]; simulatedMs: number; wallMs: number };
    expect(doc.answered).toEqual(['approve plan', `reject after-verify:implement (write-notes, retry): ${REASON}`, 'approve after-verify:implement (write-notes)']);
    expect(doc.simulatedMs).toBeLessThan(3600_000);
    console.log(`sheet replay, scripted: ${(doc.simulatedMs / 1000).toFixed(1)} s simulated in ${(doc.wallMs / 1000).toFixed(1)} s wall`);
  });

  it('`wait` leaves the first wait at a gate to its deadline: the answer after it is for a later wait at that gate', async () => {
    const people = script(['people:', '  - approve: plan', '  - wait: after-verify:implement', '  - reject: after-verify:implement', `    reason: ${REASON}`, '    retry: true']);
    const run = await runDex(['replay-test', cassette, '--script', people, '--json'], { env: testEnv.cliEnv() });
    expect(run.code, run.stdout + run.stderr).toBe(1);
    const doc = JSON.parse(run.stdout) as { answered: string[]; differences: string[]; simulatedMs: number };
    expect(doc.answered).toEqual(['approve plan']);
    expect(doc.differences).toEqual([`the script's answer "reject after-verify:implement (retry): ${REASON}" was never asked for`]);
    expect(doc.simulatedMs).toBeGreaterThanOrEqual(24 * 3600_000);
  });

  it('a script whose expectations fail exits 1 naming each', async () => {
    const people = script(['people:', '  - approve: plan', '  - approve: budget', 'expect:', '  tasks: { write-notes: failed }', '  maxCostUsd: 0']);
    const run = await runDex(['replay-test', cassette, '--script', people], { env: testEnv.cliEnv() });
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).toMatch(/the replay differs from the script's expectations \(.*people\.yaml\):/);
    expect(run.stdout).toMatch(/task write-notes: state success, expected failed/);
    expect(run.stdout).toMatch(/cost: \$[\d.]+, expected at most \$0\.00/);
    expect(run.stdout).toMatch(/the script's answer "approve budget" was never asked for/);
  });

  it('a recording that does not say where the repository started is refused: exit 2, one line', async () => {
    const old = join(newDir('old'), 'old.cassette.jsonl');
    writeFileSync(old, readFileSync(cassette));
    const { repos: _repos, ...before } = recorded;
    writeFileSync(`${old}.run.json`, JSON.stringify(before));
    const run = await runDex(['replay-test', old], { env: testEnv.cliEnv() });
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(/the recording does not say where .*\/notes, which a task statement works on, started: record the sheet again/)]);
  });
});
