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
