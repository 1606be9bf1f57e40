import { realpathSync } from 'node:fs';
import { Context } from '@temporalio/activity';
import type { VerifyResult } from '../../core/task/task-types';
import type { ActivityDeps } from '../deps';
import { assertWorktreeExists } from '../../host/worktree/worktree-paths';
import { verifyResultKey } from '../../core/run/ids';
import type { SandboxPolicy } from '../../core/safety/sandbox-policy';
import { runAgentCommand } from '../../host/sandbox/run-agent-command';
import { assertSandboxAvailable } from '../../host/sandbox/sandbox-availability';
import { lastLines, outputTail, progressIntervalFor, type ShellCommandResult } from '../../host/shell/shell-command';
import { failureCause, failuresOf, splitByBaseline } from '../../core/task/verify-failures';
import { describeChecks, type CheckResult, type ProjectCheck } from '../../core/task/project-checks';
import { plural } from '../../core/text/plural';
import { refreshDependencies } from '../../host/dependencies/refresh-dependencies';
import { hostDependencyCache } from '../run/host-dependency-cache';

/** Bytes of each command's output kept in the report. @default 65536 */
const VERIFY_OUTPUT_LIMIT_BYTES = 64 * 1024;

/** The most lines and characters of the failing command's output returned as `tail`. */
const VERIFY_TAIL = { lines: 30, chars: 2000 } as const;

/** Input of the `verify` activity. */
export interface VerifyInput {
  worktreePath: string;
  /** Shell commands run in order; the first that fails ends the run. */
  commands: string[];
  /** Time each command may take before its process group is killed. */
  timeoutMs: number;
  /** Id under which the full report is stored (kind `verify`). */
  artifactId: string;
  /** How the commands are confined (the agent can edit them, e.g. through package.json). @default the default sandbox */
  sandbox?: SandboxPolicy;
  /**
   * The failures the base commit already had (`verifyBaseline`): every command runs, and only
   * failures not in this list fail the verify (docs/roadmaps.md#baseline-aware-verify).
   */
  baseline?: string[];
  /**
   * The project's own checks besides its tests: each runs after the tests, whatever they did, and
   * is reported on its own (docs/real-repositories.md#checks-besides-tests). @default none
   */
  checks?: ProjectCheck[];
}

/** The last {@link VERIFY_TAIL} lines and characters of `output`. */
export const tailOf = (output: string): string => lastLines(output, VERIFY_TAIL);

/** The cause of a failed command: from its output, else its outcome (`timed out`, `exit code 2`; 127 is the shell's "not found"). */
function causeOf(run: ShellCommandResult): { cause: string } {
  const outcome = run.exitCode === 127 && !run.timedOut ? 'exit code 127: a command was not found in the sandbox' : describeOutcome(run);
  return { cause: failureCause(run.output) ?? outcome };
}

const failed = (run: ShellCommandResult): boolean => run.timedOut || run.exitCode !== 0;

function describeOutcome(run: ShellCommandResult): string {
  if (run.timedOut) return 'timed out';
  if (run.exitCode === null) return `killed by ${run.killedBy}`;
  return `exit code ${run.exitCode}`;
}

/** One command as verify ran it: a test command, or a check (`name`). */
interface VerifyRun {
  command: string;
  run: ShellCommandResult;
  check?: string;
}

function formatReport(runs: VerifyRun[], total: number, testsPassed: boolean, split?: { preExisting: string[]; fresh: string[] }, checks?: CheckResult[]): string {
  // Without checks the head says it of the whole verify, as it always has; with them, of the tests, and the checks follow.
  const what = checks ? 'Tests' : 'Verification';
  const head = split
    ? [
        testsPassed ? `${what} passed: no new failures in ${plural(total, 'command')}.` : `${what} failed: ${plural(split.fresh.length, 'new failure')}.`,
        split.fresh.length ? `New failures (yours to fix):\n${split.fresh.map((f) => `- ${f}`).join('\n')}` : '',
        split.preExisting.length ? `Pre-existing failures (the base commit had them; they do not block you):\n${split.preExisting.map((f) => `- ${f}`).join('\n')}` : '',
      ].filter(Boolean).join('\n')
    : testsPassed
      ? `${what} passed: ${plural(total, 'command')}.`
      : `${what} failed at command ${runs.filter((r) => !r.check).length} of ${total}.`;
  const overall = checks ? `Verification ${testsPassed && checks.every((c) => c.passed) ? 'passed' : 'failed'}. ` : '';
  // Which failed checks are the task's own is known once the base was asked (workflows/task/agent/check-baseline.ts).
  const checksLine = checks ? `Checks (the project's own, besides its tests): ${describeChecks(checks)}.` : '';
  const sections = runs.map(({ command, run, check }) => {
    return `$ ${command}${check ? `   (check: ${check})` : ''}\n(${describeOutcome(run)}, ${run.durationMs} ms)\n${outputTail(run)}`.trimEnd();
  });
  return [overall + head, checksLine, ...sections].filter(Boolean).join('\n\n');
}

/** The activity that runs a task's verify commands. */
export const createVerifyActivities = (deps: ActivityDeps) => {
  const caches = hostDependencyCache(deps);
  return {
  /**
   * Runs `commands` in the worktree until one fails, heartbeating meanwhile, and stores the
   * full report as artifact `artifactId`. A retried attempt whose report is stored returns it.
   */
  async verify(input: VerifyInput): Promise<VerifyResult> {
    const { store } = deps;
    const earlier = await store.getArtifact(verifyResultKey(input.artifactId));
    if (earlier) return JSON.parse(earlier.content) as VerifyResult;

    assertWorktreeExists(input.worktreePath);
    assertSandboxAvailable(input.sandbox);
    const ctx = Context.current();
    const refresh = await refreshDependencies(input.worktreePath, caches, { timeoutMs: input.timeoutMs, signal: ctx.cancellationSignal, onProgress: () => ctx.heartbeat() });
    if (refresh.failure) {
      // The agent changed the dependencies into something that does not install: that is its failure to read and fix.
      const tail = `${refresh.failure.message}\n${refresh.failure.tail}`.trim();
      const result: VerifyResult = { passed: false, artifactId: input.artifactId, commands: [], tail: tailOf(tail), cause: refresh.failure.message };
      await store.putArtifact(input.artifactId, 'verify', `Verification failed before its commands: ${tail}`);
      await store.putArtifact(verifyResultKey(input.artifactId), 'verify-result', JSON.stringify(result));
      return result;
    }
    const runs: VerifyRun[] = [];
    const runOne = (command: string) =>
      runAgentCommand(command, input.worktreePath, input.sandbox, {
        timeoutMs: input.timeoutMs,
        outputLimitBytes: VERIFY_OUTPUT_LIMIT_BYTES,
        signal: ctx.cancellationSignal,
        onProgress: (progress) => ctx.heartbeat({ command: runs.length, ...progress }),
        progressIntervalMs: progressIntervalFor(ctx.info.heartbeatTimeoutMs),
      });
    for (const command of input.commands) {
      const run = await runOne(command);
      runs.push({ command, run });
      if (failed(run) && !input.baseline) break;
    }
    const tests = [...runs];
    // Every check runs even when a test failed: the agent hears of all it has to fix in one round.
    for (const check of input.checks ?? []) runs.push({ command: check.command, check: check.name, run: await runOne(check.command) });

    const lastFailedTest = tests.filter(({ run }) => failed(run)).at(-1);
    const split = input.baseline ? splitByBaseline(tests.flatMap(({ command, run }) => failuresOf({ command, ...run }, realpathSync(input.worktreePath))), input.baseline) : undefined;
    const testsPassed = split ? split.fresh.length === 0 : !lastFailedTest;
    const checks = runs.flatMap(({ command, run, check }) => (check ? [{ name: check, command, passed: !failed(run), ...(failed(run) ? causeOf(run) : {}) }] : []));
    const firstFailedCheck = runs.find(({ run, check }) => check && failed(run));
    const passed = testsPassed && !firstFailedCheck;
    // What the agent and every view are told first: a test's failure, else the first check's.
    const why = testsPassed ? firstFailedCheck : lastFailedTest;
    const result: VerifyResult = {
      passed,
      artifactId: input.artifactId,
      commands: tests.map(({ command, run }) => ({
        command,
        exitCode: run.exitCode,
        timedOut: run.timedOut,
        durationMs: run.durationMs,
      })),
      tail: passed || !why ? '' : tailOf(why.run.output),
      ...(passed || !why ? {} : { cause: `${why.check ? `${why.check}: ` : ''}${causeOf(why.run).cause}` }),
      ...(split ? { preExisting: split.preExisting, newFailures: split.fresh } : {}),
      ...(input.checks?.length ? { checks, testsPassed } : {}),
    };
    const report = formatReport(runs, input.commands.length, testsPassed, split, input.checks?.length ? checks : undefined);
    await store.putArtifact(input.artifactId, 'verify', refresh.note ? `${refresh.note}\n\n${report}` : report);
    // Written last: once it exists, the report above exists too.
    await store.putArtifact(verifyResultKey(input.artifactId), 'verify-result', JSON.stringify(result));
    return result;
  },
  };
};
