import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tailOf } from '../activities/verify/verify';
import { failureCause, failuresOf, splitByBaseline } from '../core/task/verify-failures';

/** A real runner's output of a failing test (test/fixtures/verify-output/). */
const output = (name: string) => readFileSync(join(__dirname, 'fixtures', 'verify-output', name), 'utf8');

const run = (output: string, exitCode: number | null = 1, timedOut = false) => ({ command: 'npm test', exitCode, timedOut, output });

describe('naming verify failures', () => {
  it('names failed tests by runner, with the worktree path made relative', () => {
    const tap = 'TAP version 13\nok 1 - ok\nnot ok 2 - red stays red\n  ---\n  location: /wt/a/test/red.test.js:2:1\n    not ok 1 - /wt/a/test/nested.test.js # TODO later\n';
    expect(failuresOf(run(tap), '/wt/a')).toEqual(['npm test: red stays red', 'npm test: ./test/nested.test.js']);
    expect(failuresOf(run('FAILED tests/test_x.py::test_dates - AssertionError\n'), '/wt')).toEqual(['npm test: tests/test_x.py::test_dates']);
    expect(failuresOf(run(' ✕ adds numbers (3 ms)\n × parses\n'), '/wt')).toEqual(['npm test: adds numbers', 'npm test: parses']);
    expect(failuresOf(run('--- FAIL: TestSum (0.00s)\n'), '/wt')).toEqual(['npm test: TestSum']);
  });

  it('falls back to the command outcome when the output names no test, and has none for a pass', () => {
    expect(failuresOf(run('Error: boom\n', 2), '/wt')).toEqual(['npm test: exit code 2']);
    expect(failuresOf(run('', null, true), '/wt')).toEqual(['npm test: timed out']);
    expect(failuresOf(run('not ok 1 - ignored: it passed', 0), '/wt')).toEqual([]);
  });

  it('splits failures into those the base had and new ones', () => {
    expect(splitByBaseline(['a: x', 'a: y'], ['a: x', 'b: z'])).toEqual({ preExisting: ['a: x'], fresh: ['a: y'] });
  });
});

describe('what made verify fail', () => {
  it("is the failed test and its message, which the output's tail of stack frames has lost", () => {
    const tap = output('node-test-tap.txt');
    expect(tailOf(tap)).not.toContain('not ok');
    expect(tailOf(tap).trim().split('\n').at(-1)).toMatch(/^# duration_ms/);
    expect(failureCause(tap)).toBe('not ok 1 - sum adds\nExpected values to be strictly equal:\n-1 !== 3');
    expect(failureCause(output('node-test-spec.txt'))).toBe('✖ sum adds (3.444579ms)\nAssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n-1 !== 3');
    expect(failureCause(output('pytest.txt'))).toBe('FAILED test_x.py::test_sum - assert -1 == 3');
    expect(failureCause(output('go-test.txt'))).toBe('--- FAIL: TestSum (0.00s)\nsum_test.go:3: Sum(1, 2) = -1, want 3');
  });

  it('is else the first line that reads as an error, not a stack frame or a count', () => {
    const crash = "node:internal/modules/cjs/loader:1210\n  throw err;\n  ^\n\nError: Cannot find module './nope'\n    at Module._load (node:internal/modules/cjs/loader:1038:27)\n";
    expect(failureCause(crash)).toBe("Error: Cannot find module './nope'");
    const tsc = "> tsc --noEmit\n\nsrc/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.\nnpm error code 2\n";
    expect(failureCause(tsc)).toBe("src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.");
    expect(failureCause('\x1b[31mFAIL\x1b[0m one\n# fail 1\n')).toBe('FAIL one');
    expect(failureCause('# tests 1\n# fail 0\nall good\n')).toBeUndefined();
    expect(failureCause(`Error: ${'x'.repeat(500)}`)!.length).toBeLessThanOrEqual(200);
  });
});
