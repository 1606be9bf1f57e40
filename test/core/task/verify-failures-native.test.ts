import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { causeOnOneLine, failureCause, failuresOf } from '../../../core/task/verify-failures';

/** Real output of ctest, meson, GoogleTest and gcc on a small broken C or C++ project (test/fixtures/verify-output/). */
const output = (name: string) => readFileSync(join(__dirname, '..', '..', 'fixtures', 'verify-output', name), 'utf8');

const run = (output: string) => ({ command: 'ctest', exitCode: 8, timedOut: false, output });

describe('naming the failed tests of C and C++ runners', () => {
  it("names ctest's failed test once, from its progress line and its summary", () => {
    const out = output('ctest-assert.txt');
    expect(out).toContain('The following tests FAILED:\n\t  1 - calc_test (Subprocess aborted)');
    expect(failuresOf(run(out), '/tmp/p/c-calc')).toEqual(['ctest: calc_test']);
  });

  it("names GoogleTest's failed test, never its `1 test, listed below:`, on its own and under ctest", () => {
    expect(failuresOf(run(output('gtest.txt')), '/tmp/p/c-gtest')).toEqual(['ctest: Math.Adds']);
    expect(failuresOf(run(output('ctest-gtest.txt')), '/tmp/p/c-gtest')).toEqual(['ctest: Math.Adds']);
  });

  it("names meson's failed test, not those that passed", () => {
    expect(failuresOf(run(output('meson-test.txt')), '/tmp/p/c-meson')).toEqual(['ctest: calc_test']);
  });
});

describe('what made a C or C++ verify fail', () => {
  it("is ctest's failed test with what the test printed, without the dot leader and the time", () => {
    const cause = failureCause(output('ctest-assert.txt'));
    expect(cause).toBe("1/1 Test #1: calc_test Subprocess aborted***Exception:\ncalc_test: /tmp/p/c-calc/tests/calc_test.c:5: main: Assertion `add(2, 3) == 5' failed.");
    expect(causeOnOneLine(cause!)).toBe("1/1 Test #1: calc_test Subprocess aborted***Exception: calc_test: /tmp/p/c-calc/tests/calc_test.c:5: main: Assertion `add(2, 3) == 5' failed.");
  });

  it("is GoogleTest's failure under ctest: the test, the file and line, and what it expected", () => {
    expect(failureCause(output('ctest-gtest.txt'))).toBe('1/2 Test #1: Math.Adds ***Failed\n/tmp/p/c-gtest/math_test.cc:3: Failure\nExpected equality of these values:');
    expect(failureCause(output('gtest.txt'))).toBe('[  FAILED  ] Math.Adds (0 ms)');
  });

  it("is meson's failed test, its columns closed up, with the test's own message", () => {
    expect(failureCause(output('meson-test.txt'))).toBe("2/2 calc_test FAIL 0.05s killed by signal 6 SIGABRT\ncalc_test: ../../tests/calc_test.c:5: main: Assertion `add(2, 3) == 5' failed.");
    // A test that timed out says nothing below it: its line alone, never meson's `Expected Fail: 0` count.
    const timedOut = '31/33 composite TIMEOUT 120.14s killed by signal 15 SIGTERM\n\nSummary of Failures:\n\n31/33 composite TIMEOUT 120.14s killed by signal 15 SIGTERM\n\nOk:                 32\nExpected Fail:      0\nFail:               0\nTimeout:            1\n';
    expect(failureCause(timedOut)).toBe('31/33 composite TIMEOUT 120.14s killed by signal 15 SIGTERM');
  });

  it("is the compiler's error, not ninja's `FAILED:` line for the object it could not build", () => {
    expect(output('cmake-compile-error.txt')).toMatch(/^FAILED: CMakeFiles\/calc\.dir/m);
    expect(failureCause(output('cmake-compile-error.txt'))).toBe('/tmp/p/c-calc/src/calc.c:2:39: error: expected expression before ‘;’ token');
    expect(failureCause(output('meson-compile-error.txt'))).toBe('../../src/calc.c:2:36: error: ‘undefined_var’ undeclared (first use in this function)');
  });

  it("is the linker's missing symbol, and ctest finding no test at all", () => {
    expect(failureCause(output('cmake-link-error.txt'))).toBe("calc_test.c:(.text+0xf): undefined reference to `add'");
    expect(failureCause(output('ctest-no-tests.txt'))).toBe('No tests were found');
  });

  it('is CMake\'s error and what it says below, when the build reruns a configure that fails', () => {
    const rerun = '[0/1] Re-running CMake...\nCMake Error at CMakeLists.txt:5 (add_executable):\n  Cannot find source file:\n\n    tests/gone.c\n\n-- Configuring incomplete, errors occurred!\nFAILED: build.ninja\n';
    expect(failureCause(rerun)).toBe('CMake Error at CMakeLists.txt:5 (add_executable):\nCannot find source file:');
  });
});
