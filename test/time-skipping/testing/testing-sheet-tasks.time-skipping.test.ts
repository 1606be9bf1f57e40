// The sheet-task example of docs/testing-your-flows.md, run as it is printed there: a sheet whose task
// statement waits a day for a person after verify, its gate answered by a people script (`task:` names the statement).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDexTest, type DexTest } from 'dex/testing';

const CASSETTE = join(__dirname, '..', '..', 'fixtures', 'flows', 'notes-sheet.cassette.jsonl');

/** A repository with a sheet whose one statement is a task; the task's work waits a day for a person after verify. */
function notesSheet(): { repo: string; sheet: string } {
  const repo = mkdtempSync(join(tmpdir(), 'notes-'));
  const sheet = join(repo, 'notes.sheet.yaml');
  writeFileSync(sheet, 'name: notes\nstatements:\n  - { id: write-notes, run: task, title: Write NOTES.md about sum, as: "@sha" }\n');
  writeFileSync(join(repo, 'dex.config.yaml'), 'verify: ["grep -q sum NOTES.md"]\ngates:\n  afterVerify: { deadline: 24h, defaultAction: approve }\n');
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=me', '-c', 'user.email=me@example.com', ...args], { cwd: repo, encoding: 'utf8' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-qm', 'sheet');
  return { repo, sheet };
}

/** A file as the commit a task statement produced has it. */
const fileAt = (repo: string, sha: string, path: string) => execFileSync('git', ['show', `${sha}:${path}`], { cwd: repo, encoding: 'utf8' });

describe('the notes sheet', () => {
  let dex: DexTest;
  beforeAll(async () => {
    dex = await startDexTest({ cassette: CASSETTE });
  }, 60_000);
  afterAll(() => dex.stop());

  it("runs its task after a day nobody answers: the task's gate approves by default", async () => {
    const { repo, sheet } = notesSheet();
    const run = await dex.runSheet({ file: sheet });
    expect(run.state).toBe('completed');
    expect(run.simulatedMs).toBeGreaterThanOrEqual(24 * 3600_000);
    const sha = run.statements[0].value!; // a task statement's value: the commit its task made
    expect(fileAt(repo, sha, 'NOTES.md')).toBe('sum adds two numbers\n');
  });

  it("goes round again when a person rejects the task's work, then runs on", async () => {
    const { repo, sheet } = notesSheet();
    const run = await dex.runSheet({
      file: sheet,
      confirm: true,
      people: [
        { approve: 'plan' }, // the sheet's own gate
        { reject: 'after-verify:implement', task: 'write-notes', reason: 'say what sum() of nothing is', retry: true },
        { approve: 'after-verify:implement', task: 'write-notes' }, // task: the statement's id
      ],
    });
    expect(run.state).toBe('completed');
    expect(run.answered).toEqual([
      'approve plan',
      'reject after-verify:implement (write-notes, retry): say what sum() of nothing is',
      'approve after-verify:implement (write-notes)',
    ]);
    expect(run.prompts.some((p) => p.includes('say what sum() of nothing is'))).toBe(true);
    expect(run.simulatedMs).toBeLessThan(3600_000); // answered at once: no deadline passed
    expect(fileAt(repo, run.statements[0].value!, 'NOTES.md')).toContain('sum() is 0');
  });

  it('is the file docs/testing-your-flows.md shows, as it is', () => {
    expect(readFileSync(join(__dirname, '..', '..', '..', 'docs', 'testing-your-flows.md'), 'utf8')).toContain(readFileSync(__filename, 'utf8'));
  });
});
