/**
 * Which checks a verify run failed, by name, so a task's failures can be told from those its
 * base commit already had (docs/roadmaps.md#baseline-aware-verify). Pure.
 */

/** One verify command as it ran. */
interface CommandRun {
  command: string;
  exitCode: number | null;
  timedOut: boolean;
  output: string;
}

/**
 * Maven Surefire's failed tests, each with its message on its own line: the summary's
 * `[ERROR]   CalculatorTest.adds:12 expected: <4> but was: <5>` (surefire 2.19 and later; the line
 * number, which moves as the file is edited, is no part of the name), and surefire 2.12's
 * `Failed tests:   adds(demo.CalculatorTest): …` and the `Tests in error:` lines below it.
 */
const SUREFIRE_LINES: RegExp[] = [
  /^\[ERROR\] {2,}(?:Run \d+: )?([\w$]+(?:[.>][\w$]+)+)(?::\d+)?(?: |$)/,
  /^(?:(?:Failed tests|Tests in error):)?\s*([\w$]+\((?:[\w$]+\.)+[\w$]+\)): \S/,
];

/** Lines that name one failed test, by test runner: TAP (`node --test`, tape), pytest, jest/vitest, go test, cargo test, Maven Surefire. */
const FAILED_TEST_LINES: RegExp[] = [
  ...SUREFIRE_LINES,
  /^\s*not ok \d+ - (.+?)(?:\s+#\s.*)?$/, // TAP; a `# SKIP`/`# TODO` directive is not part of the name
  /^FAILED (\S+)/, // pytest -rf summary
  /^\s*[✕×] (.+?)(?: \(\d+ m?s\))?$/, // jest / vitest
  /^--- FAIL: (\S+)/, // go test
  /^test (\S+) \.\.\. FAILED$/, // cargo test
  /^(\S+) --- FAILED$/, // cargo test -q
  /^\s*\d+\/\d+ Test\s+#\d+: (.+?)\s*\.*[\w ]*\*{3}\w/, // ctest, as each test ends (`1/3 Test #1: parse ….***Failed`)
  /^\s*\d+ - (.+?) \((?:Failed|SEGFAULT|Timeout|Not Run|Subprocess aborted|Subprocess killed|Child aborted|Exception|ILLEGAL|BUS|OTHER_FAULT|INTERRUPT|NUMERICAL)\)$/, // ctest's summary
  /^\[\s+FAILED\s+\] (?!\d+ tests?,)(\S+?)(?:, where .*| \(\d+ ms\))?$/, // GoogleTest, never its `1 test, listed below:`
  /^\s*\d+\/\d+ (.+?)\s+(?:FAIL|TIMEOUT|ERROR|UNEXPECTEDPASS)\s+\d+(?:\.\d+)?s\b/, // meson test
];

/**
 * The failures of one command, each `command: name`: the failed tests its output names (with
 * the worktree's path made relative, so two checkouts name them alike), or, when it names none,
 * the command's own outcome.
 */
export function failuresOf(run: CommandRun, worktreePath: string): string[] {
  if (!run.timedOut && run.exitCode === 0) return [];
  const names = new Set<string>();
  for (const line of run.output.split('\n')) {
    for (const pattern of FAILED_TEST_LINES) {
      const match = pattern.exec(line);
      if (match) names.add(match[1].split(worktreePath).join('.').trim());
    }
  }
  if (names.size === 0) names.add(run.timedOut ? 'timed out' : `exit code ${run.exitCode ?? 'killed'}`);
  return [...names].map((name) => `${run.command}: ${name}`);
}

/** `failures` split into those the base already had and those that are new. */
export function splitByBaseline(failures: readonly string[], baseline: readonly string[]): { preExisting: string[]; fresh: string[] } {
  const before = new Set(baseline);
  return { preExisting: failures.filter((f) => before.has(f)), fresh: failures.filter((f) => !before.has(f)) };
}

/** A line that says what went wrong: an error, an exception, a failed assertion, a panic. */
const ERROR_LINE = /\b(\w*Error|error|\w*Exception|assert\w*|fail(s|ed|ure)?|panic|fatal)\b/i;
/** A line that starts with one: `Error: boom`, `AssertionError [ERR_ASSERTION]: …`, `panic: …`. */
const ERROR_HEAD = /^(\w*Error|error|\w*Exception|assert\w*|fail(ed|ure)?|panic|fatal)\b/i;
/** What a failed test's message looks like below its name: an error, an expectation, a panic, `file:line: …`. */
const MESSAGE_LINE = /\b(\w*Error|error|\w*Exception|assert\w*|expected|received|panic|panicked)\b|!==|^[\w./-]+:\d+(:\d+)?: /i;
/** Lines that never say the cause: counts (`# fail 1`, `0 failed`), stack frames, the source line a Node crash quotes (`throw …`), a YAML block's key alone (`error: |-`). */
const NOISE = /^(Ok|Expected Fail|Fail|Unexpected Pass|Skipped|Timeout):\s+\d+$|^#\s*\w+\s+\d+$|^\d+ (failed|passed|errors?)\b|^at\s|^\S+\s\(\S+:\d+:\d+\)$|^node:internal\/|^throw\s|^\w+:\s*[|>]-?$|^\[(INFO|WARNING|ERROR)\]( -+)?$/;
/**
 * A failed test's line, for a cause: the runners' lines above, node's spec reporter's `✖ name`
 * (not its summary's heading), uvu's `FAIL "name"`, and pytest's `ERROR collecting file`, a
 * test file that could not even be imported.
 */
const CAUSE_TEST_LINES = [...FAILED_TEST_LINES, /^✖ (?!failing tests:)/, /^FAIL\s+"/, /^ERROR collecting \S/];
/** mocha's count of failed tests, and its numbered failed test (`1) adds`). */
const MOCHA_SUMMARY = /^\d+ failing$/;
const MOCHA_TEST_LINE = /^\d+\) \S/;
/**
 * Lines that stop a whole suite before any test, whatever runner: a module that is not there (Python,
 * Node's CommonJS and ES modules, TypeScript, Go), an import that fails, a compile error (rustc with
 * its `-->` location below, tsc, Go's `file.go:line:col: …`).
 */
const SUITE_STOPPERS: RegExp[] = [
  /No module named\b|^(E\s+)?ModuleNotFoundError\b|^(E\s+)?ImportError: /,
  /Cannot find (module|package) ['"]|\bERR_MODULE_NOT_FOUND\b/,
  /^error\[E\d+\]: /,
  /\berror TS\d+: /,
  /^\.?\/?[\w./-]+\.go:\d+:\d+: |cannot find package |no required module provides package |cannot find module providing package /,
  // C and C++ (gcc, clang): a compile error, a symbol the linker cannot find; CMake's or meson's configure failing as the build reruns it; a build without tests.
  /^\S+\.(c|cc|cpp|cxx|c\+\+|h|hh|hpp|hxx|ipp|inl|m|mm):\d+(:\d+)?: (fatal )?error: /,
  /undefined reference to [`']/,
  /^CMake Error at |^\S*meson\.build:\d+:\d+: ERROR: /,
  /^No tests were found\b/,
  // javac, as Maven's compiler plugin says it (`[ERROR] /…/Foo.java:[12,5] cannot find symbol`) and as Gradle's does.
  /^\[ERROR\] \S+\.java:\[\d+,\d+\] |^\S+\.java:\d+: error: /,
];
/** What `/bin/sh` (dash), bash or busybox print for a command not on PATH: `/bin/sh: 1: cargo: not found`, `bash: line 1: cargo: command not found`. */
const NOT_FOUND = /^(?:\/(?:usr\/)?bin\/)?(?:sh|bash|dash|ash)(?:: line \d+|: \d+)?: ([\w.+-]+): (?:command )?not found$/;
/** How far below a failed test's name its message is looked for. */
const MESSAGE_WITHIN = 20;
/** At most this many characters of each line of a cause. */
const CAUSE_LINE_CHARS = 200;

/**
 * A line as a cause shows it: without pytest's `____ … ____` rulers, its `E   ` gutter, a thread's
 * id in a Rust panic, ctest's dot leader and time, or the columns of meson's.
 */
const tidy = (line: string): string =>
  line
    .replace(/^[_=!⎯]{3,}\s*|\s*[_=!⎯]{3,}$/g, '')
    .replace(/^E\s{2,}/, '')
    .replace(/^(thread '[^']*') \(\d+\) panicked/, '$1 panicked')
    .replace(/^(\d+\/\d+ Test\s+#\d+: .+?) \.{2,}(.*?)\s+[\d.]+ sec$/, '$1 $2')
    .replace(/^\d+\/\d+ .+?\s+(FAIL|TIMEOUT|ERROR|UNEXPECTEDPASS)\s+\d.*$/, (meson) => meson.replace(/\s{2,}/g, ' '));

/**
 * What made a verify command fail, in a line or three, for `dex status`, `dex log` and the
 * runaway gate: a command the sandbox does not have; else the first failed test its output names
 * (TAP, pytest, jest/vitest, go test, cargo test, mocha, uvu, a pytest file that failed to import) with
 * the message under it; else the first line that stops a whole suite (a missing module, an import
 * error, a compile error, with rustc's location); else the first line that reads as an error,
 * with the line after it when it ends in a colon. Undefined when the output says nothing of the
 * kind. The output's tail stays the detail.
 */
export function failureCause(output: string): string | undefined {
  const lines = output.replace(/\x1b\[[0-9;]*m/g, '').split('\n').map((l) => tidy(l.trim()));
  const said = (i: number) => lines[i] !== undefined && lines[i] !== '' && !NOISE.test(lines[i]);
  const withNext = (i: number): number[] => {
    const next = lines.findIndex((l, j) => j > i && said(j));
    // A line that ends in a colon goes on below; rustc says where under its error (`--> src/lib.rs:1:41`).
    // Go's `cannot find package "x" in any of:` goes on with the folders it looked in, which say nothing.
    // GoogleTest's `file:line: Failure` goes on with what failed (`Expected equality of these values:`).
    const goesOn = ((lines[i].endsWith(':') || lines[i].endsWith(': Failure')) && !lines[i].endsWith('in any of:')) || (/^error\[E\d+\]/.test(lines[i]) && lines[next]?.startsWith('-->'));
    // javac says which symbol below `cannot find symbol` (`symbol:   variable x`).
    if (/\.java:\[\d+,\d+\] cannot find symbol$/.test(lines[i]) && /^(\[ERROR\]\s+)?symbol:/.test(lines[next] ?? '')) return [i, next];
    return goesOn && next > i && next <= i + 3 ? [i, next] : [i];
  };
  const show = (picked: number[]) => picked.map((i) => (lines[i].length > CAUSE_LINE_CHARS ? `${lines[i].slice(0, CAUSE_LINE_CHARS - 1)}…` : lines[i])).join('\n');

  const missing = lines.map((l) => NOT_FOUND.exec(l)).find(Boolean);
  if (missing) return `${missing[1]}: command not found in the sandbox (\`${missing[0]}\`)`;
  // mocha numbers its failed tests (`1) adds`); a numbered line is one only where mocha's `1 failing` says so.
  const testLines = lines.some((l) => MOCHA_SUMMARY.test(l)) ? [...CAUSE_TEST_LINES, MOCHA_TEST_LINE] : CAUSE_TEST_LINES;
  const test = lines.findIndex((l, i) => said(i) && testLines.some((p) => p.test(l)));
  if (test >= 0) {
    // Surefire says the message on the test's own line, or on the next when it ends at the test's line number.
    if (SUREFIRE_LINES.some((p) => p.test(lines[test]))) return show(/:\d+$/.test(lines[test]) && said(test + 1) ? [test, test + 1] : [test]);
    const within = (j: number) => j > test && j <= test + MESSAGE_WITHIN && said(j);
    // pytest marks the line that says why with `E` in its gutter: that one, not its `ImportError while importing…` heading.
    const gutter = output.replace(/\x1b\[[0-9;]*m/g, '').split('\n').map((l) => l.trim());
    const marked = lines.findIndex((_, j) => within(j) && /^E\s+\w*(Error|Exception)\b/.test(gutter[j]));
    const message = marked > test ? marked : lines.findIndex((l, j) => within(j) && MESSAGE_LINE.test(l));
    return show(message > test ? [test, ...withNext(message)] : [test]);
  }
  const stopper = SUITE_STOPPERS.map((p) => lines.findIndex((l, i) => said(i) && p.test(l))).find((i) => i >= 0);
  if (stopper !== undefined) return show(withNext(stopper));
  const head = lines.findIndex((l, i) => said(i) && ERROR_HEAD.test(l));
  const any = head >= 0 ? head : lines.findIndex((l, i) => said(i) && ERROR_LINE.test(l));
  return any >= 0 ? show(withNext(any)) : undefined;
}

/** A cause's lines as one, for a one-line place (`dex log`, the runaway gate): a line that ends in a colon runs on into the next, others are set apart by a dash. */
export const causeOnOneLine = (cause: string): string => cause.split('\n').reduce((line, next) => (line ? `${line}${line.endsWith(':') ? ' ' : ' — '}${next}` : next), '');
