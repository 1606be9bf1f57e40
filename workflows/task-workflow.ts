import {
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { TaskInput, TaskResult, Worktree } from '../core/types';
import { hostActivities } from './activity-proxies';
import { runAgentPhase, type PhaseOutcome } from './agent-phase';
import { statusQuery } from './definitions';
import { RunControl } from './run-control';
import { TaskProgress } from './task-progress';

const PHASE = 'implement';

/**
 * One task on one repository: a branch and worktree of its own, the implement phase with
 * its optional gates, and a checkpoint commit once verify passes. The workflow history is
 * the checkpoint of the run itself: after any crash it resumes where it was.
 */
export async function taskWorkflow(input: TaskInput): Promise<TaskResult> {
  const { workflowId } = workflowInfo();
  const acts = hostActivities(input.hostQueue);
  const control = new RunControl();
  const progress = new TaskProgress(input.taskId, control);
  setHandler(statusQuery, () => progress.status());

  let worktree: Worktree | undefined;
  const startedAt = Date.now();
  const finish = (state: TaskResult['state'], extra: Partial<TaskResult> = {}): TaskResult => {
    progress.state = state;
    if (extra.error) progress.error = extra.error;
    return {
      taskId: input.taskId,
      state,
      branch: worktree?.branch ?? `dex/${workflowId}`,
      commit: progress.commit,
      turns: progress.turns,
      tokens: progress.tokens,
      costUsd: progress.costUsd,
      verifyPassed: progress.lastVerify?.passed ?? false,
      ...extra,
    };
  };

  try {
    worktree = await acts.prepareWorktree({ repoPath: input.repoPath, branch: `dex/${workflowId}`, worktreeName: workflowId });
    progress.branch = worktree.branch;

    let outcome: PhaseOutcome = { kind: 'failed', error: 'phase did not run' };
    let retryContext: string | undefined;
    for (let attempt = 1; attempt <= input.maxRetries + 1; attempt++) {
      outcome = await attemptPhase(attempt, retryContext);
      if (outcome.kind !== 'rejected') break;
      retryContext = `An earlier attempt was rejected: ${outcome.reason}`;
      await acts.rollbackWorktree({ worktreePath: worktree.path, sha: worktree.baseSha });
    }
    await acts.recordPhase({
      key: `${workflowId}/${PHASE}`,
      workflowId,
      taskId: input.taskId,
      phase: PHASE,
      state: outcome.kind,
      turns: progress.turns,
      ...progress.tokens,
      costUsd: progress.costUsd,
      durationMs: Date.now() - startedAt,
      model: input.models[PHASE] ?? input.models.default,
      commitSha: progress.commit ?? null,
    });

    if (outcome.kind === 'verified') {
      await acts.removeWorktree({ repoPath: input.repoPath, worktreePath: worktree.path });
      return finish('completed', { summary: outcome.summary, verifyPassed: true });
    }
    if (outcome.kind === 'rejected') {
      await acts.rollbackWorktree({ worktreePath: worktree.path, sha: worktree.baseSha });
      const result = finish('rejected', { error: `rejected: ${outcome.reason}` });
      throw ApplicationFailure.create({ message: result.error!, type: 'TaskRejected', nonRetryable: true, details: [result] });
    }
    // A failed run keeps its worktree as the agent left it, for a person to inspect.
    const result = finish('failed', { error: outcome.error });
    throw ApplicationFailure.create({ message: outcome.error, type: 'TaskFailed', nonRetryable: true, details: [result] });
  } catch (err) {
    if (isCancellation(err)) {
      const wt = worktree;
      if (wt) {
        await CancellationScope.nonCancellable(() => acts.rollbackWorktree({ worktreePath: wt.path, sha: progress.commit ?? wt.baseSha }));
      }
      finish('cancelled');
      throw err;
    }
    if (err instanceof ApplicationFailure && (err.type === 'TaskFailed' || err.type === 'TaskRejected')) throw err;
    const message = describeFailure(err);
    const result = finish('failed', { error: message });
    throw ApplicationFailure.create({ message, type: 'TaskFailed', nonRetryable: true, details: [result] });
  }

  async function attemptPhase(attempt: number, retryContext?: string): Promise<PhaseOutcome> {
    const wt = worktree!;
    if (input.gates.beforePhase) {
      const decision = await control.waitAt(`before:${PHASE}`, input.gates.beforePhase, { taskId: input.taskId });
      if (decision.action === 'reject') return { kind: 'rejected', reason: decision.reason };
      if (decision.note) retryContext = [retryContext, `Note from a person: ${decision.note}`].filter(Boolean).join('\n');
    }
    const outcome = await runAgentPhase({ input, phase: PHASE, attempt, worktreePath: wt.path, retryContext, acts, control, progress });
    if (outcome.kind !== 'verified') return outcome;
    if (input.gates.afterVerify) {
      const decision = await control.waitAt(`after-verify:${PHASE}`, input.gates.afterVerify, { taskId: input.taskId });
      if (decision.action === 'reject') return { kind: 'rejected', reason: decision.reason };
    }
    await control.unpaused();
    progress.at({ phase: PHASE, activity: 'commit' });
    const { sha } = await acts.commitCheckpoint({
      worktreePath: wt.path,
      message: `dex(${input.taskId}): ${input.title}\n\n${outcome.summary}`,
      key: `${workflowId}/${PHASE}`,
    });
    progress.commit = sha;
    return outcome;
  }
}

/** The innermost message of a failure chain: what actually went wrong. */
function describeFailure(err: unknown): string {
  let cur: unknown = err;
  while (cur instanceof Error && (cur as { cause?: unknown }).cause instanceof Error) cur = (cur as { cause?: unknown }).cause;
  return cur instanceof Error ? cur.message : String(err);
}
