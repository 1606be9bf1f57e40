import { workflowInfo } from '@temporalio/workflow';
import { phaseAttemptKey } from '../../core/run/ids';
import { CHANGING_PHASES } from '../../core/task/phases';
import { runAgentPhase, type PhaseOutcome } from './agent/agent-phase';
import { decideAtGate } from './gate-decision';
import type { PhaseAttempt } from './task-run';
import { recordState } from './fleet/take-up';

/**
 * One attempt at a phase with its gates: the optional gate before it, the agent's work, the
 * optional gate after verify, and the checkpoint commit of a verified phase that changes files
 * (one commit per verified phase, idempotent by its key).
 */
export async function attemptPhase(args: PhaseAttempt): Promise<PhaseOutcome> {
  const { phase } = args;
  const { input, control, progress, acts } = args.run;
  const { workflowId } = workflowInfo();
  let retryContext = args.retryContext;
  if (input.gates.beforePhase) {
    const decision = await decideAtGate(args, `before:${phase}`, input.gates.beforePhase);
    if (decision.action === 'reject') return { kind: 'rejected', reason: decision.reason, retry: decision.retry };
    if (decision.note) retryContext = [retryContext, `Note from a person: ${decision.note}`].filter(Boolean).join('\n');
  }
  const outcome = await runAgentPhase({ ...args, retryContext });
  if (outcome.kind !== 'verified') return outcome;
  if (input.gates.afterVerify && CHANGING_PHASES.has(phase)) {
    const decision = await decideAtGate(args, `after-verify:${phase}`, input.gates.afterVerify);
    if (decision.action === 'reject') return { kind: 'rejected', reason: decision.reason, retry: decision.retry };
  }
  if (!CHANGING_PHASES.has(phase)) return outcome;
  await control.unpaused();
  progress.at({ phase, activity: 'commit' });
  const commit = (allowProtected: boolean) =>
    acts.commitCheckpoint({
      worktreePath: args.run.worktree.path,
      message: `dex(${input.taskId}): ${phase}: ${input.title}\n\n${outcome.summary}`,
      key: phaseAttemptKey(workflowId, phase, args.attempt),
      protectedPaths: input.protectedPaths,
      allowProtected,
    }, `commit · ${phase}`);
  let committed = await commit(false);
  const unasked = committed.protectedChanges?.filter((path) => !outcome.allowedPaths?.includes(path)) ?? [];
  if (committed.protectedChanges?.length && !unasked.length) committed = await commit(true);
  else if (committed.protectedChanges?.length) {
    // A task must not rewrite what confines or checks the next one (dex.config.yaml, CI files) unseen.
    const reason = `the change touches protected paths: ${unasked.join(', ')}`;
    const decision = await control.waitAt(`protected:${phase}`, {}, { taskId: input.taskId, reason });
    if (decision.action === 'reject') return { kind: 'rejected', reason: decision.reason, retry: decision.retry };
    committed = await commit(true);
  }
  progress.commit = committed.sha;
  await recordState(args.run);
  return outcome;
}
