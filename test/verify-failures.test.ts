import { describe, expect, it } from 'vitest';
import { failuresOf, splitByBaseline } from '../core/task/verify-failures';

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
