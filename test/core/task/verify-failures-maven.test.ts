import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { failureCause, failuresOf, splitByBaseline } from '../../../core/task/verify-failures';

/** Maven's real output of a failing `mvn -B -o test` (test/fixtures/verify-output/). */
const output = (name: string) => readFileSync(join(__dirname, '..', '..', 'fixtures', 'verify-output', name), 'utf8');

const run = (text: string) => ({ command: 'mvn -B -o test', exitCode: 1, timedOut: false, output: text });

describe('Maven Surefire as verify reads it', () => {
  it('names each failed test by class and method, as the summary says them, never by its line number or the counts', () => {
    expect(failuresOf(run(output('surefire-junit5.txt')), '/tmp/p/calc5')).toEqual([
      'mvn -B -o test: CalculatorTest.adds',
      'mvn -B -o test: CalculatorTest.addsMany',
      'mvn -B -o test: CalculatorTest.divides',
    ]);
    expect(failuresOf(run(output('surefire-junit4.txt')), '/tmp/p/calc4')).toEqual(['mvn -B -o test: CalculatorTest.adds', 'mvn -B -o test: CalculatorTest.divides']);
    // surefire 2.12, which Maven 3.8 runs when a pom pins none: its own summary's words.
    expect(failuresOf(run(output('surefire-2.12-junit4.txt')), '/tmp/p/calc4')).toEqual(['mvn -B -o test: adds(demo.CalculatorTest)', 'mvn -B -o test: divides(demo.CalculatorTest)']);
  });

  it('keeps a name when an edit above the test moves its line, so the baseline tells old failures from new', () => {
    const base = failuresOf(run('[ERROR] Failures: \n[ERROR]   CalculatorTest.adds:12 expected: <4> but was: <5>\n[ERROR] Tests run: 2, Failures: 1\n'), '/a');
    const now = failuresOf(run('[ERROR] Failures: \n[ERROR]   CalculatorTest.adds:15 expected: <4> but was: <5>\n[ERROR]   CalculatorTest.subtracts:21 expected: <0> but was: <1>\n'), '/b');
    expect(splitByBaseline(now, base)).toEqual({ preExisting: ['mvn -B -o test: CalculatorTest.adds'], fresh: ['mvn -B -o test: CalculatorTest.subtracts'] });
  });

  it('names inherited and rerun tests, and nothing of a compile error or a count', () => {
    const names = (text: string) => failuresOf(run(text), '/wt');
    expect(names('[ERROR]   SubTest>BaseTest.checks:8 » NullPointer\n[ERROR]   Run 1: FlakyTest.retries:3 boom\n')).toEqual(['mvn -B -o test: SubTest>BaseTest.checks', 'mvn -B -o test: FlakyTest.retries']);
    expect(names(output('maven-compile-error.txt'))).toEqual(['mvn -B -o test: exit code 1']);
    expect(names('[ERROR] Tests run: 3, Failures: 1, Errors: 0, Skipped: 0\n[ERROR]   symbol:   variable x\n[ERROR]   location: class demo.Calculator\n')).toEqual(['mvn -B -o test: exit code 1']);
  });

  it('gives the failed test with its message as the cause, JUnit 5 and 4, surefire 3 and 2.12', () => {
    expect(failureCause(output('surefire-junit5.txt'))).toBe('[ERROR]   CalculatorTest.adds:12 expected: <4> but was: <5>');
    expect(failureCause(output('surefire-junit4.txt'))).toBe('[ERROR]   CalculatorTest.adds:10 expected:<4> but was:<5>');
    expect(failureCause(output('surefire-2.12-junit4.txt'))).toBe('Failed tests:   adds(demo.CalculatorTest): expected:<4> but was:<5>');
    // A message of its own lines (AssertJ's) follows the test's line.
    expect(failureCause('[ERROR] Failures: \n[ERROR]   PriceTest.rounds:14 \nexpecting actual:\n  1.05\n')).toBe('[ERROR]   PriceTest.rounds:14\nexpecting actual:');
  });

  it("stops at a compile error, with javac's symbol", () => {
    expect(failureCause(output('maven-compile-error.txt'))).toBe('[ERROR] /tmp/p/calc4/src/main/java/demo/Calculator.java:[5,24] cannot find symbol\nsymbol:   variable missing');
    expect(failureCause('> Task :compileJava FAILED\n/p/src/main/java/demo/A.java:3: error: incompatible types: String cannot be converted to int\n')).toBe('/p/src/main/java/demo/A.java:3: error: incompatible types: String cannot be converted to int');
    // No position to name: the line under Maven's heading, past its rulers.
    expect(failureCause('[ERROR] COMPILATION ERROR : \n[INFO] -------------------------------------------------------------\n[ERROR] Source option 5 is no longer supported. Use 7 or later.\n')).toBe('[ERROR] COMPILATION ERROR :\n[ERROR] Source option 5 is no longer supported. Use 7 or later.');
  });
});
