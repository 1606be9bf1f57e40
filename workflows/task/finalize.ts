import { isCancellation, workflowInfo } from '@temporalio/workflow';
import { innermostMessage } from '../../core/run/failure-message';
import type { TargetMerge } from '../../activities/roadmap/landing-merge';
import { phaseAttemptKey, verifyReportId } from '../../core/run/ids';
import type { FinalizeRequest } from '../../core/task/task-types';
import type { PhaseOutcome } from './agent/agent-phase';
import { attemptPhase } from './phase-attempt';
import type { TaskRun } from './task-run';

/**
 * A roadmap's finalize run on a task's existing branch (docs/roadmaps.md#finalize): merge the
 * moved target into the worktree; a clean merge whose verify passes is committed at once (no
 * model call); conflicts, or a verify failure on the merged tree, go to a `finalize` agent phase
 * that sees the conflicting files and the failure, verifies and commits the merge. After
 * `maxAttempts` attempts, the work goes back to implement, as the retry map has it: `rework`
 * attempts (implement on the merged tree) while `maxRetries` lasts. Then the run fails, and the
 * roadmap waits at the `merge` gate.
 */
export async function runFinalize(run: TaskRun, request: FinalizeRequest): Promise<PhaseOutcome> {
  const { input, worktree, acts, progress } = run;
  const { workflowId } = workflowInfo();
  let outcome: PhaseOutcome;
  let failure: string | undefined;
  let conflicts: string | undefined;
  // After the finalize attempts, the retry map sends the work back to implement: `rework` is
  // implement on the merged tree, tried while `maxRetries` lasts, before a person is asked.
  const reworks = input.maxRetries;
  for (let n = 1; n <= request.maxAttempts + reworks; n++) {
    const phase = n <= request.maxAttempts ? 'finalize' : 'rework';
    // Numbered across rounds, so a later finalize run of this task never finds an earlier one's transcript or commit.
    const attempt = phase === 'finalize' ? (request.round - 1) * request.maxAttempts + n : (request.round - 1) * reworks + (n - request.maxAttempts);
    progress.at({ phase, activity: 'merge' });
    const merge = await acts.mergeTarget({ worktreePath: worktree.path, target: request.target }, `finalize · merge ${request.targetName}`);
    // A cancelled or rejected finalize rolls back to the branch as it was, never to the task's base.
    progress.commit ??= merge.head;
    if (merge.status === 'contained') return { kind: 'verified', summary: `already holds ${request.targetName}`, verify: undefined };
    const key = phaseAttemptKey(workflowId, phase, attempt);
    if (merge.status === 'clean' && !failure) {
      const verify = await acts.verify({
        worktreePath: worktree.path,
        commands: run.verify,
        timeoutMs: 30 * 60_000,
        artifactId: verifyReportId(key, 0),
        sandbox: input.sandbox,
      }, `finalize · verify the merge of ${request.targetName}`);
      progress.lastVerify = verify;
      if (verify.passed) {
        // What the merge brings in is on the target already: its protected paths were seen there.
        const message = `dex(${input.taskId}): finalize: merge ${request.targetName}\n\nVerified on the merged tree.`;
        const committed = await acts.commitCheckpoint({ worktreePath: worktree.path, message, key, allowProtected: true }, 'commit · finalize');
        progress.commit = committed.sha;
        return { kind: 'verified', summary: `merged ${request.targetName} cleanly; verify passed`, verify };
      }
      failure = `verify failed on the merged tree:\n${verify.tail}`;
    }
    if (merge.status === 'conflict') conflicts = `merge conflict in ${merge.files.join(', ')}`;
    const retryContext = describe(merge, request, failure);
    try {
      outcome = await attemptPhase({ run, phase, attempt, artifacts: {}, retryContext });
    } catch (err) {
      // A model call that cannot be made ends this attempt, not the escalation to a person.
      if (isCancellation(err)) throw err;
      outcome = { kind: 'failed', error: innermostMessage(err) };
    }
    if (outcome.kind !== 'failed') return outcome;
    failure = [outcome.error, outcome.output].filter(Boolean).join('\n');
  }
  const tries = `${request.maxAttempts} finalize and ${reworks} rework attempt${reworks === 1 ? '' : 's'}`;
  return { kind: 'failed', error: `finalize onto ${request.targetName} failed after ${tries}${conflicts ? ` (${conflicts})` : ''}: ${failure}` };
}

/** What the finalize phase is told: which files conflict, and what failed before. */
function describe(merge: TargetMerge, request: FinalizeRequest, failure: string | undefined): string {
  const lines = [`The newest commits of ${request.targetName} are merged into this worktree, not yet committed.`];
  if (merge.status === 'conflict') {
    lines.push(`These files conflict and hold conflict markers: ${merge.files.join(', ')}.`, 'Resolve each so both sides\' intent is kept, and remove every marker.');
  }
  if (failure) lines.push(`Before: ${failure}`);
  return lines.join('\n');
}
