// The example of docs/testing-your-flows.md, run as it is printed there: a roadmap whose gate waits
// 24 h, tested in seconds on the time-skipping server through `dex/testing`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDexTest, type DexTest } from 'dex/testing';

const CASSETTE = join(__dirname, '..', '..', 'fixtures', 'flows', 'notes.cassette.jsonl');

/** A repository with one roadmap task whose work waits a day for a person after verify. */
function notesRepo(): string {
  const repo = mkdtempSync(join(tmpdir(), 'notes-'));
  writeFileSync(join(repo, 'ROADMAP.md'), '- [ ] N1: Write NOTES.md about sum\n');
  writeFileSync(join(repo, 'dex.config.yaml'), 'verify: ["grep -q sum NOTES.md"]\ngates:\n  afterVerify: { deadline: 24h, defaultAction: approve }\n');
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=me', '-c', 'user.email=me@example.com', ...args], { cwd: repo });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-qm', 'roadmap');
  return repo;
}

describe('the notes roadmap', () => {
  let dex: DexTest;
  beforeAll(async () => {
    dex = await startDexTest({ cassette: CASSETTE });
  }, 60_000);
  afterAll(() => dex.stop());

  it('lands after a day nobody answers: the gate approves by default', async () => {
    const repo = notesRepo();
    const run = await dex.runRoadmap({ roadmap: join(repo, 'ROADMAP.md') });
    expect(run.state).toBe('completed');
    expect(run.tasks).toEqual([expect.objectContaining({ id: 'N1', state: 'completed' })]);
    expect(run.simulatedMs).toBeGreaterThanOrEqual(24 * 3600_000);
    expect(run.wallMs).toBeLessThan(20_000);
    expect(readFileSync(join(repo, 'NOTES.md'), 'utf8')).toBe('sum adds two numbers\n');
  });

  it('goes round again when a person rejects with a reason, then lands', async () => {
    const repo = notesRepo();
    const run = await dex.runRoadmap({
      roadmap: join(repo, 'ROADMAP.md'),
      people: [
        { reject: 'after-verify:implement', reason: 'say what sum() of nothing is', retry: true },
        { approve: 'after-verify:implement' },
      ],
    });
    expect(run.state).toBe('completed');
    expect(run.answered).toHaveLength(2);
    expect(run.prompts.some((p) => p.includes('say what sum() of nothing is'))).toBe(true);
    expect(run.costUsd).toBeLessThan(0.1);
    expect(readFileSync(join(repo, 'NOTES.md'), 'utf8')).toContain('sum() is 0');
  });

  it('is the file docs/testing-your-flows.md shows, as it is', () => {
    expect(readFileSync(join(__dirname, '..', '..', '..', 'docs', 'testing-your-flows.md'), 'utf8')).toContain(readFileSync(__filename, 'utf8'));
  });
});
