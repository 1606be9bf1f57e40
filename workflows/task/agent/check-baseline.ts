import { blockingChecks } from '../../../core/task/project-checks';
import type { VerifyResult } from '../../../core/task/task-types';
import type { TaskRun } from '../task-run';

/** Time each check may take on the base commit, as verify gives a command. */
const BASE_CHECK_TIMEOUT_MS = 30 * 60_000;

/**
 * `verify` with each failed check asked of the task's base commit
 * (docs/real-repositories.md#checks-besides-tests): a check that fails there too was failing
 * before the task and does not block it; one that passes there is the task's to fix. The base is
 * asked only when a check fails, once per check and task (`verifyBaseline`, which is cached per
 * base and commands): a project whose checks pass costs nothing more.
 */
export async function withCheckBaseline(run: TaskRun, verify: VerifyResult): Promise<VerifyResult> {
  const failing = blockingChecks(verify.checks);
  if (!failing.length) return verify;
  const known = run.checksFailingOnBase;
  const ask = failing.filter((c) => !(c.command in known));
  if (ask.length) {
    const { input, worktree } = run;
    const base = await run.acts.verifyBaseline(
      {
        repoPath: input.repoPath,
        ...(input.repo ? { repo: input.repo } : {}),
        baseSha: worktree.baseSha,
        commands: ask.map((c) => c.command),
        timeoutMs: BASE_CHECK_TIMEOUT_MS,
        sandbox: input.sandbox,
        setup: input.setup,
      },
      `checks · on the base ${worktree.baseSha.slice(0, 10)}: ${ask.map((c) => c.name).join(', ')}`,
    );
    for (const c of ask) known[c.command] = base.failures.some((f) => f.startsWith(`${c.command}: `));
  }
  const checks = (verify.checks ?? []).map((c) => (!c.passed && known[c.command] ? { ...c, preExisting: true } : c));
  const own = blockingChecks(checks);
  const passed = verify.testsPassed !== false && own.length === 0;
  if (passed) return { ...verify, checks, passed, tail: '', cause: undefined };
  // Tests that passed leave a check as the cause: the first that is the task's own.
  const cause = verify.testsPassed && own[0] ? `${own[0].name}: ${own[0].cause ?? 'failed'}` : verify.cause;
  return { ...verify, checks, passed, cause };
}
