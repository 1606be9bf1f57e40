// The mocha example of docs/testing-your-flows.md (examples/mocha/notes.test.ts), run by the real
// mocha binary as a user runs it; and a copy with a wrong expectation, in a project that has dex as
// a dependency, which fails as mocha fails: a non-zero exit and the difference in its output.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(__dirname, '..', '..', '..');
const EXAMPLE = join(ROOT, 'examples', 'mocha', 'notes.test.ts');

/** A project of a user's: dex, mocha and tsx installed, the example's cassette where it reads it, and `test` as its test file. */
function userProject(test: string): string {
  const project = mkdtempSync(join(tmpdir(), 'dex-mocha-'));
  mkdirSync(join(project, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(ROOT, join(project, 'node_modules', 'dex'));
  for (const name of ['mocha', 'tsx']) symlinkSync(join(ROOT, 'node_modules', name), join(project, 'node_modules', name));
  symlinkSync(join('..', 'mocha', 'bin', 'mocha.js'), join(project, 'node_modules', '.bin', 'mocha'));
  mkdirSync(join(project, 'test', 'fixtures', 'flows'), { recursive: true });
  copyFileSync(join(ROOT, 'test', 'fixtures', 'flows', 'notes.cassette.jsonl'), join(project, 'test', 'fixtures', 'flows', 'notes.cassette.jsonl'));
  writeFileSync(join(project, 'notes.test.ts'), test);
  return project;
}

/** `npx mocha --require tsx/cjs FILE` in the project `cwd`: its exit code and its output. */
function mocha(file: string, cwd: string): Promise<{ code: number; output: string }> {
  const bin = join(cwd, 'node_modules', '.bin', 'mocha');
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, '--require', 'tsx/cjs', file], { cwd, timeout: 120_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      resolve({ code, output: stdout + stderr });
    });
  });
}

describe('the mocha example', () => {
  it('passes under mocha', async () => {
    const run = await mocha(EXAMPLE, ROOT);
    expect(run.code, run.output).toBe(0);
    expect(run.output).toMatch(/✔ lands after a day nobody answers: the gate approves by default/);
    expect(run.output).toMatch(/1 passing/);
  });

  it('fails under mocha with a wrong expectation, naming the difference', async () => {
    const example = readFileSync(EXAMPLE, 'utf8');
    const wrong = example.replace("assert.equal(run.state, 'completed');", "assert.equal(run.state, 'failed');");
    expect(wrong).not.toBe(example);
    const project = userProject(wrong);
    const run = await mocha('notes.test.ts', project);
    expect(run.code, run.output).toBe(1);
    expect(run.output).toMatch(/0 passing[\s\S]*1 failing/);
    expect(run.output).toMatch(/AssertionError/);
    expect(run.output).toMatch(/\+ expected - actual\s+-completed\s+\+failed/);
  });

  it('is the file docs/testing-your-flows.md shows, as it is', () => {
    expect(readFileSync(join(ROOT, 'docs', 'testing-your-flows.md'), 'utf8')).toContain(readFileSync(EXAMPLE, 'utf8'));
  });
});
