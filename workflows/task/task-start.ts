import { ActivityFailure, ApplicationFailure, patched, workflowInfo } from '@temporalio/workflow';
import { FAILURE } from '../../core/run/failure-types';
import { describeDetectedVerify, describeSetup } from '../../core/run/setup-types';
import { describePickedChecks } from '../../core/task/project-checks';
import { setupReportId, taskBranch, taskWorktreeName } from '../../core/run/ids';
import type { SequenceStart } from './phase-sequence';
import type { TaskRun } from './task-run';

/** The output's tail a failed setup carries (activities/task/setup-worktree.ts), for the task's result. */
function setupTailOf(err: unknown): string | undefined {
  const cause = err instanceof ActivityFailure ? err.cause : undefined;
  if (!(cause instanceof ApplicationFailure) || cause.type !== FAILURE.SetupFailed) return undefined;
  return (cause.details?.[0] as { tail?: string } | undefined)?.tail || undefined;
}

/**
 * A task for which dex looked for the project's test commands and found none says so in every
 * view, and will wait at the `unverified` gate before it ends (workflow.ts): a task that ran no
 * test must not pass for a verified one (docs/real-repositories.md#no-test-command-found).
 * Runs recorded before this existed replay without it.
 */
function noteNoTestCommand(run: TaskRun): void {
  const { input, progress } = run;
  if (input.finalize || input.fixCi || input.revise || run.verify.length) return;
  const lookedFor = input.verifyNoneFound || (input.detectVerify && input.setup !== false && progress.setup !== undefined);
  if (!lookedFor || !patched('unverified-gate')) return;
  progress.unverified = true;
  progress.verifyDetected = describeDetectedVerify([]);
  progress.ledger.step(`verify · ${progress.verifyDetected}`);
}

/**
 * Gets a task ready for its phases: for a rewound run (`dex retry --from`), finds the earlier
 * run's checkpoint before the phase; makes the branch and worktree (at that checkpoint, or from
 * HEAD) and hands it to the run; installs or restores its dependencies
 * (docs/real-repositories.md); with `verifyBaseline`, learns which verify failures the base
 * already had; and, with a planner, chooses the type of a task that has none. Returns where a
 * rewound run's phases start.
 */
export async function startTask(run: TaskRun): Promise<SequenceStart | undefined> {
  const { input, acts, progress, planner, phases } = run;
  const { workflowId } = workflowInfo();
  const branch = taskBranch(workflowId);
  const rewind = input.rewind;
  const point = rewind
    ? await acts.findRewindPoint(
        { fromWorkflowId: rewind.fromWorkflowId, phases: [...phases], from: rewind.fromPhase, baseSha: rewind.baseSha },
        `rewind · ${rewind.fromWorkflowId} before ${rewind.fromPhase}`,
      )
    : undefined;
  const at = point && rewind ? { sha: point.sha, baseSha: rewind.baseSha } : undefined;
  const where = { repoPath: input.repoPath, ...(input.repo ? { repo: input.repo } : {}) };
  const from = input.fromBranch ? { from: input.fromBranch } : {};
  const worktree = await acts.prepareWorktree({ ...where, branch, worktreeName: taskWorktreeName(workflowId), ...(at ? { start: at } : {}), ...from }, `worktree · ${branch}`);
  progress.branch = worktree.branch;
  run.worktree = worktree;
  // Runs recorded before setup existed replay without it.
  if (input.setup !== false && patched('worktree-setup')) {
    // An install can take minutes: a watcher sees it start, not only end.
    progress.ledger.step('setup · dependencies…');
    const setup = {
      worktreePath: worktree.path,
      ...where,
      setup: input.setup,
      sandbox: input.sandbox,
      artifactId: setupReportId(workflowId),
      ...(input.detectVerify ? { detectVerify: true } : {}),
      ...(input.checks !== undefined ? { checks: input.checks } : {}),
    };
    progress.setup = await acts.setupWorktree(setup, 'setup · dependencies').catch((err: unknown) => {
      progress.setupTail = setupTailOf(err);
      throw err;
    });
    progress.ledger.step(`setup · ${describeSetup(progress.setup)}`);
    // Only a run whose input asks has them: runs recorded before (and their histories) replay as they ran.
    const detected = input.detectVerify ? progress.setup.verify : undefined;
    if (detected?.length) {
      run.verify = detected;
      progress.verifyDetected = describeDetectedVerify(detected);
      progress.ledger.step(`verify · ${progress.verifyDetected}`);
    }
    // Absent from results of runs that did not ask: those replay as they ran.
    if (progress.setup.checks?.length) {
      run.checks = progress.setup.checks;
      progress.ledger.step(`checks · ${describePickedChecks(run.checks)}`);
    }
  }
  noteNoTestCommand(run);
  if (input.verifyBaseline && run.verify.length) {
    const baseline = { ...where, baseSha: worktree.baseSha, commands: run.verify, timeoutMs: 30 * 60_000, sandbox: input.sandbox, setup: input.setup };
    progress.baseline = (await acts.verifyBaseline(baseline, `verify baseline · ${worktree.baseSha.slice(0, 10)}`)).failures;
  }
  if (!point || !rewind) {
    // A task without a type gets one from the planner, when it has one, before its first phase.
    if (!input.finalize && !input.fixCi && !input.revise) run.replaceSteps(0, await planner.firstPhases([...phases]));
    return undefined;
  }
  // The earlier run's checkpoint is this run's last one: a rollback goes back to it, not to the base.
  if (point.sha !== rewind.baseSha) progress.commit = point.sha;
  progress.completedPhases = point.completedPhases;
  return { index: phases.indexOf(rewind.fromPhase), artifacts: point.artifacts, note: rewind.note };
}
