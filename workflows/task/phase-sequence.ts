import { sleep, workflowInfo } from '@temporalio/workflow';
import { phaseArtifactId, phaseAttemptKey } from '../../core/ids';
import { ARTIFACT_VARIABLES, DEFAULT_RETRY_MAP } from '../../core/phases';
import type { TaskInput, Worktree } from '../../core/task-types';
import type { RunControl } from '../run/run-control';
import { minus } from '../run/run-ledger';
import { notifyParent } from '../run/parent-link';
import type { HostActivities } from './activities';
import type { PhaseOutcome } from './agent-phase';
import { attemptPhase } from './phase-attempt';
import { retryDelayMs, retryTarget } from './phase-retry';
import type { TaskProgress } from './progress';

/** What the phases of one task share. */
export interface PhaseSequenceArgs {
  input: TaskInput;
  phases: string[];
  worktree: Worktree;
  acts: HostActivities;
  control: RunControl;
  progress: TaskProgress;
}

/**
 * Runs a task's phases in order, each attempt recorded in the store; a failed or rejected phase
 * goes back where the retry map says (after a durable backoff, with the worktree rolled back to
 * the last checkpoint) while retries last. Returns the outcome of the last attempt.
 */
export async function runPhaseSequence(args: PhaseSequenceArgs): Promise<PhaseOutcome> {
  const { input, phases, worktree, acts, progress } = args;
  const { workflowId } = workflowInfo();
  const retryMap = input.retryMap ?? DEFAULT_RETRY_MAP;
  const attempts: Record<string, number> = {};
  const artifacts: Record<string, string> = {};
  let retries = 0;
  let retryContext: string | undefined;
  let index = 0;
  let outcome: PhaseOutcome = { kind: 'failed', error: 'no phase ran' };
  while (index < phases.length) {
    const phase = phases[index];
    attempts[phase] = (attempts[phase] ?? 0) + 1;
    await notifyParent(input.taskId, progress, phase);
    outcome = await recordedAttempt(args, phase, attempts[phase], { retryContext, artifacts });
    if (outcome.kind === 'verified') {
      if (ARTIFACT_VARIABLES[phase]) artifacts[ARTIFACT_VARIABLES[phase]] = phaseArtifactId(workflowId, phase);
      progress.completedPhases = [...new Set([...progress.completedPhases, phase])];
      retryContext = undefined;
      index++;
      continue;
    }
    const back = outcome.kind === 'rejected' ? phase : retryTarget(phase, phases, retryMap);
    if (back === undefined || retries >= input.maxRetries) break;
    retries++;
    retryContext = describeForRetry(phase, outcome);
    await sleep(retryDelayMs(retries));
    const sha = progress.commit ?? worktree.baseSha;
    await acts.rollbackWorktree({ worktreePath: worktree.path, sha }, `rollback · to ${sha.slice(0, 10)} before ${back}`);
    progress.completedPhases = progress.completedPhases.slice(0, phases.indexOf(back));
    index = phases.indexOf(back);
  }
  return outcome;
}

/** One attempt at `phase`, and its record in the store: what it spent, how long it took, how it ended. */
async function recordedAttempt(
  args: PhaseSequenceArgs,
  phase: string,
  attempt: number,
  carry: { retryContext?: string; artifacts: Record<string, string> },
): Promise<PhaseOutcome> {
  const { input, worktree, acts, control, progress } = args;
  const { workflowId } = workflowInfo();
  const started = Date.now();
  const before = progress.ledger.spent();
  const outcome = await attemptPhase({ input, phase, attempt, worktreePath: worktree.path, ...carry, acts, control, progress });
  const spent = minus(progress.ledger.spent(), before);
  await acts.recordPhase({
    key: phaseAttemptKey(workflowId, phase, attempt),
    workflowId,
    taskId: input.taskId,
    phase,
    state: outcome.kind,
    turns: spent.turns,
    ...spent.tokens,
    costUsd: spent.costUsd,
    durationMs: Date.now() - started,
    model: input.models[phase] ?? input.models.default,
    commitSha: progress.commit ?? null,
  }, `record · ${phase} ${outcome.kind}`);
  return outcome;
}

/** What the phase the work goes back to is told about the failure. */
function describeForRetry(phase: string, outcome: Exclude<PhaseOutcome, { kind: 'verified' }>): string {
  if (outcome.kind === 'rejected') return `The ${phase} phase was rejected: ${outcome.reason}`;
  return [`The ${phase} phase failed: ${outcome.error}`, outcome.output ? `Its output:\n${outcome.output}` : ''].filter(Boolean).join('\n');
}
