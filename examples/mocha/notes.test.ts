// The mocha example of docs/testing-your-flows.md: the notes roadmap, its day-long gate passed in
// seconds. Run from the project's root: npx mocha --require tsx/cjs examples/mocha/notes.test.ts
import { execFileSync } from 'node:child_process';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'mocha';
import { startDexTest, type DexTest } from 'dex/testing';

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

describe('the notes roadmap', function () {
  this.timeout(60_000); // the first run starts Java and a worker
  let dex: DexTest;
  before(async () => {
    dex = await startDexTest({ cassette: 'test/fixtures/flows/notes.cassette.jsonl' });
  });
  after(() => dex.stop());

  it('lands after a day nobody answers: the gate approves by default', async () => {
    const repo = notesRepo();
    const run = await dex.runRoadmap({ roadmap: join(repo, 'ROADMAP.md') });
    assert.equal(run.state, 'completed');
    assert.deepEqual(run.tasks.map((t) => [t.id, t.state]), [['N1', 'completed']]);
    assert.ok(run.simulatedMs >= 24 * 3600_000, `simulated ${run.simulatedMs} ms`);
    assert.equal(readFileSync(join(repo, 'NOTES.md'), 'utf8'), 'sum adds two numbers\n');
  });
});
