import { sleep, workflowInfo } from '@temporalio/workflow';
import { phaseArtifactId, phaseAttemptKey } from '../../core/run/ids';
import { ARTIFACT_VARIABLES, DEFAULT_RETRY_MAP } from '../../core/task/phases';
import { minus } from '../run/run-ledger';
import type { PhaseOutcome } from './agent/agent-phase';
import { attemptPhase } from './phase-attempt';
import { retryDelayMs, retryTarget } from './phase-retry';
import type { TaskRun } from './task-run';

/** Where a rewound run (`dex retry --from`) starts: the phase's index, the earlier run's artifacts, a person's note. */
export interface SequenceStart {
  index: number;
  artifacts: Record<string, string>;
  note?: string;
}

/**
 * Runs a task's phases in order, each attempt recorded in the store. A failed check goes back
 * where the retry map says, after a durable backoff (1 s, 2 s, 4 s …), while `maxRetries`
 * lasts; a person's reject ends the task unless it asks for a retry, which reruns the phase
 * with the reason, on a counter of its own (docs/roadmaps.md#how-a-run-goes). Before going back, the
 * worktree is rolled back to the last checkpoint. Returns the outcome of the last attempt.
 */
export async function runPhaseSequence(run: TaskRun, start?: SequenceStart): Promise<PhaseOutcome> {
  const { input, phases, progress } = run;
  const { workflowId } = workflowInfo();
  const retryMap = input.retryMap ?? DEFAULT_RETRY_MAP;
  const attempts: Record<string, number> = {};
  const artifacts: Record<string, string> = { ...start?.artifacts };
  const retries = { check: 0, reject: 0 };
  let retryContext = start?.note ? `Note from a person, who had this phase run again: ${start.note}` : undefined;
  let index = start?.index ?? 0;
  let outcome: PhaseOutcome = { kind: 'failed', error: 'no phase ran' };
  while (index < phases.length) {
    const phase = phases[index];
    attempts[phase] = (attempts[phase] ?? 0) + 1;
    await progress.parent.tell(phase);
    outcome = await recordedAttempt(run, phase, attempts[phase], { retryContext, artifacts });
    if (outcome.kind === 'verified') {
      if (ARTIFACT_VARIABLES[phase]) artifacts[ARTIFACT_VARIABLES[phase]] = phaseArtifactId(workflowId, phase);
      progress.completedPhases = [...new Set([...progress.completedPhases, phase])];
      retryContext = undefined;
      index++;
      continue;
    }
    if (outcome.kind === 'escalated') {
      const after = await run.planner.escalated(phases, index, outcome.reason);
      if ('person' in after && after.person === 'reject') return { kind: 'rejected', reason: after.reason };
      if ('replanned' in after) run.replaceSteps(index, after.replanned);
      retryContext = `The ${phase} step escalated: ${outcome.reason}\n${'replanned' in after ? `The remaining steps were planned again: ${after.replanned.join(', ')}.` : `A person answered: ${after.note ?? 'go on'}`}`;
      await goBack(run, phases[index]);
      continue;
    }
    const back = goBackTo(outcome, phase, phases, retryMap);
    const counter = outcome.kind === 'rejected' ? 'reject' : 'check';
    if (back === undefined || retries[counter] >= input.maxRetries) break;
    retries[counter]++;
    retryContext = describeForRetry(phase, outcome);
    // A person's retry goes at once; a failed check waits, as note 001's executor does.
    if (counter === 'check') await sleep(retryDelayMs(retries.check));
    index = await goBack(run, back);
  }
  return outcome;
}

/** Rolls the worktree back to the last checkpoint before going (back) to phase `to`; returns its index. */
async function goBack(run: TaskRun, to: string): Promise<number> {
  const { acts, worktree, progress, phases } = run;
  const sha = progress.commit ?? worktree.baseSha;
  await acts.rollbackWorktree({ worktreePath: worktree.path, sha }, `rollback · to ${sha.slice(0, 10)} before ${to}`);
  progress.completedPhases = progress.completedPhases.slice(0, phases.indexOf(to));
  return phases.indexOf(to);
}

/** The phase the work goes back to after `outcome`; undefined when the task ends. */
function goBackTo(outcome: Extract<PhaseOutcome, { kind: 'rejected' | 'failed' }>, phase: string, phases: readonly string[], retryMap: Record<string, string>): string | undefined {
  if (outcome.kind === 'rejected') return outcome.retry ? phase : undefined;
  return retryTarget(phase, phases, retryMap);
}

/** One attempt at `phase`, and its record in the store: what it spent, how long it took, how it ended. */
async function recordedAttempt(
  run: TaskRun,
  phase: string,
  attempt: number,
  carry: { retryContext?: string; artifacts: Record<string, string> },
): Promise<PhaseOutcome> {
  const { input, acts, progress } = run;
  const { workflowId } = workflowInfo();
  const started = Date.now();
  const before = progress.ledger.spent();
  const outcome = await attemptPhase({ run, phase, attempt, ...carry });
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
function describeForRetry(phase: string, outcome: Extract<PhaseOutcome, { kind: 'rejected' | 'failed' }>): string {
  if (outcome.kind === 'rejected') return `The ${phase} phase was rejected: ${outcome.reason}`;
  return [`The ${phase} phase failed: ${outcome.error}`, outcome.output ? `Its output:\n${outcome.output}` : ''].filter(Boolean).join('\n');
}
