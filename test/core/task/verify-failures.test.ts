import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tailOf } from '../../../activities/verify/verify';
import { failureCause, failuresOf, splitByBaseline } from '../../../core/task/verify-failures';

/** A real runner's output of a failing test (test/fixtures/verify-output/). */
const output = (name: string) => readFileSync(join(__dirname, '..', '..', 'fixtures', 'verify-output', name), 'utf8');

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

  // Each fixture is a real runner's output, captured on a tiny broken project (test/fixtures/verify-output/).
  it('names a module that is not there, for each ecosystem', () => {
    expect(failureCause(output('python-no-pytest.txt'))).toBe('/usr/bin/python3: No module named pytest');
    expect(failureCause(output('python-module-not-found.txt'))).toBe("ModuleNotFoundError: No module named 'notamodule_x'");
    expect(failureCause(output('node-cannot-find-module.txt'))).toBe("Error: Cannot find module 'lodash-nope'");
    expect(failureCause(output('node-err-module-not-found.txt'))).toBe("Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'chalk-nope' imported from /tmp/p/node-esm/index.js");
    expect(failureCause(output('vitest-missing-import.txt'))).toBe("Error: Cannot find package 'date-nope' imported from /tmp/p/vt/parse.test.js");
    expect(failureCause(output('cargo-unresolved-import.txt'))).toBe('error[E0432]: unresolved import `crate::parser`\n--> src/lib.rs:1:12');
    expect(failureCause(output('go-no-required-module.txt'))).toBe('y.go:3:8: no required module provides package github.com/stretchr/testify/assert; to add it:\ngo get github.com/stretchr/testify/assert');
    expect(failureCause(output('go-cannot-find-package.txt'))).toBe('main.go:3:8: cannot find package "github.com/foo/bar" in any of:');
  });

  it("names a test file pytest could not import by the line in pytest's E gutter", () => {
    expect(failureCause(output('pytest-collect-error.txt'))).toBe("ERROR collecting test_a.py\nModuleNotFoundError: No module named 'requestz'");
    expect(failureCause(output('pytest-import-error.txt'))).toBe("ERROR collecting test_calc.py\nImportError: cannot import name 'sub' from 'calc' (/tmp/p/py-importname/calc.py)");
  });

  it('names a compile error with where it is', () => {
    expect(failureCause(output('cargo-compile-error.txt'))).toBe('error[E0425]: cannot find value `c` in this scope\n--> src/lib.rs:1:41');
    expect(failureCause(output('tsc-error.txt'))).toBe("a.ts(1,7): error TS2322: Type 'string' is not assignable to type 'number'.");
    // Not go's `FAIL example.com/x [build failed]` below it.
    expect(failureCause(output('go-undefined.txt'))).toBe('./x.go:4:9: undefined: Foo');
  });

  it("names a failed test and its message, for each ecosystem's usual runners", () => {
    expect(failureCause(output('pytest-assertion-message.txt'))).toBe('FAILED test_x.py::test_dates - AssertionError: dates differ');
    const panic = "thread 'tests::adds' panicked at src/lib.rs:6:17:\nassertion `left == right` failed";
    expect(failureCause(output('cargo-test-failed-verbose.txt'))).toBe(`test tests::adds ... FAILED\n${panic}`);
    expect(failureCause(output('cargo-test-failed.txt'))).toBe(`tests::adds --- FAILED\n${panic}`);
    expect(failuresOf(run(output('cargo-test-failed-verbose.txt'), 101), '/wt')).toEqual(['npm test: tests::adds']);
    expect(failureCause(output('go-test-failed.txt'))).toBe('--- FAIL: TestSum (0.00s)\nz_test.go:7: Sum(1, 2) = -1, want 3');
    expect(failureCause(output('vitest-failed.txt'))).toBe('× sum adds 7ms\nAssertionError: expected -1 to be 3 // Object.is equality');
    expect(failureCause(output('jest-failed.txt'))).toBe('✕ adds (3 ms)\nexpect(received).toBe(expected) // Object.is equality');
    expect(failureCause(output('mocha-failed.txt'))).toBe('1) adds\nAssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n-1 !== 3');
    // Without mocha's `1 failing`, a numbered line is not a test.
    expect(failureCause('1) first step\nError: boom\n')).toBe('Error: boom');
    expect(failureCause(output('uvu-failed.txt'))).toBe('FAIL  "sum adds"\nExpected values to be strictly equal:  (is)');
  });

  it('says a command the sandbox does not have is not found there (exit code 127)', () => {
    expect(failureCause(output('sh-command-not-found.txt'))).toBe('cargo: command not found in the sandbox (`/bin/sh: 1: cargo: not found`)');
    expect(failureCause(output('bash-command-not-found.txt'))).toBe('cargo: command not found in the sandbox (`bash: line 1: cargo: command not found`)');
    // An HTTP test's `Error: not found` is not a shell's.
    expect(failureCause('Error: not found\n')).toBe('Error: not found');
  });
});
