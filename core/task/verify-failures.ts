/**
 * Which checks a verify run failed, by name, so a task's failures can be told from those its
 * base commit already had (docs/roadmaps.md#baseline-aware-verify). Pure.
 */

/** One verify command as it ran. */
export interface CommandRun {
  command: string;
  exitCode: number | null;
  timedOut: boolean;
  output: string;
}

/** Lines that name one failed test, by test runner: TAP (`node --test`, tape), pytest, jest/vitest, go test. */
const FAILED_TEST_LINES: RegExp[] = [
  /^\s*not ok \d+ - (.+?)(?:\s+#\s.*)?$/, // TAP; a `# SKIP`/`# TODO` directive is not part of the name
  /^FAILED (\S+)/, // pytest -rf summary
  /^\s*[✕×] (.+?)(?: \(\d+ m?s\))?$/, // jest / vitest
  /^--- FAIL: (\S+)/, // go test
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
/** What a failed test's message looks like below its name: an error, an expectation, `file:line: …`. */
const MESSAGE_LINE = /\b(\w*Error|error|\w*Exception|assert\w*|expected|received|panic)\b|!==|^[\w./-]+:\d+(:\d+)?: /i;
/** Lines that never say the cause: counts (`# fail 1`, `0 failed`), stack frames, a YAML block's key alone (`error: |-`). */
const NOISE = /^#\s*\w+\s+\d+$|^\d+ (failed|passed|errors?)\b|^at\s|^\S+\s\(\S+:\d+:\d+\)$|^node:internal\/|^\w+:\s*[|>]-?$/;
/** A failed test's line, for a cause: the runners' lines above, and node's spec reporter's `✖ name` (not its summary's heading). */
const CAUSE_TEST_LINES = [...FAILED_TEST_LINES, /^✖ (?!failing tests:)/];
/** How far below a failed test's name its message is looked for. */
const MESSAGE_WITHIN = 20;
/** At most this many characters of each line of a cause. */
const CAUSE_LINE_CHARS = 200;

/**
 * What made a verify command fail, in a line or three, for `dex status` and `dex log`: the first
 * failed test its output names (TAP, pytest, jest/vitest, go test) with the message under it, or
 * else the first line that reads as an error, with the line after it when it ends in a colon.
 * Undefined when the output says nothing of the kind. The output's tail stays the detail.
 */
export function failureCause(output: string): string | undefined {
  const lines = output.replace(/\x1b\[[0-9;]*m/g, '').split('\n').map((l) => l.trim());
  const said = (i: number) => lines[i] !== undefined && lines[i] !== '' && !NOISE.test(lines[i]);
  const withNext = (i: number): number[] => {
    if (!lines[i].endsWith(':')) return [i];
    const next = lines.findIndex((l, j) => j > i && said(j));
    return next > i && next <= i + 3 ? [i, next] : [i];
  };
  const test = lines.findIndex((l, i) => said(i) && CAUSE_TEST_LINES.some((p) => p.test(l)));
  let picked: number[] | undefined;
  if (test >= 0) {
    const message = lines.findIndex((l, j) => j > test && j <= test + MESSAGE_WITHIN && said(j) && MESSAGE_LINE.test(l));
    picked = message > test ? [test, ...withNext(message)] : [test];
  } else {
    const head = lines.findIndex((l, i) => said(i) && ERROR_HEAD.test(l));
    const any = head >= 0 ? head : lines.findIndex((l, i) => said(i) && ERROR_LINE.test(l));
    if (any >= 0) picked = withNext(any);
  }
  return picked?.map((i) => (lines[i].length > CAUSE_LINE_CHARS ? `${lines[i].slice(0, CAUSE_LINE_CHARS - 1)}…` : lines[i])).join('\n');
}
