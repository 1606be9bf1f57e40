import {
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import { ARTIFACT_VARIABLES, DEFAULT_RETRY_MAP } from '../../core/phases';
import type { TaskInput, TaskResult, Worktree } from '../../core/types';
import { hostActivities } from './activities';
import { type PhaseOutcome } from './agent-phase';
import { statusQuery } from '../run/definitions';
import { notifyParent } from '../run/parent-link';
import { attemptPhase } from './phase-attempt';
import { retryDelayMs, retryTarget } from './phase-retry';
import { RunControl } from '../run/run-control';
import { TaskProgress } from './progress';
import { innermostMessage } from '../../core/failure-message';

/**
 * One task on one repository: a branch and worktree of its own, its phases in order (by
 * weight, or its type's steps), each with optional gates, a checkpoint commit after every
 * verified phase that changes files, and the retry map sending a failed phase back to an
 * earlier one. The workflow history is the checkpoint of the run itself: after any crash it
 * resumes where it was.
 */
export async function taskWorkflow(input: TaskInput): Promise<TaskResult> {
  const { workflowId } = workflowInfo();
  const phases = input.phases?.length ? input.phases : ['implement'];
  const retryMap = input.retryMap ?? DEFAULT_RETRY_MAP;
  const acts = hostActivities(input.hostQueue);
  // The parent (a roadmap) hears of every wait and its end, so its status shows who waits.
  const control: RunControl = new RunControl(() => notifyParent(input.taskId, progress));
  const progress = new TaskProgress(input.taskId, control, phases, !!input.type);
  progress.budget = input.budget;
  progress.sandbox = input.sandbox?.mode ?? 'bwrap';
  setHandler(statusQuery, () => progress.status());

  let worktree: Worktree | undefined;
  const startedAt = Date.now();
  const finish = async (state: TaskResult['state'], extra: Partial<TaskResult> = {}): Promise<TaskResult> => {
    progress.state = state;
    if (extra.error) progress.error = extra.error;
    await notifyParent(input.taskId, progress);
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
      const phaseStart = Date.now();
      const before = { ...progress.tokens, costUsd: progress.costUsd, turns: progress.turns };
      outcome = await attemptPhase({ input, phase, attempt: attempts[phase], worktreePath: worktree.path, retryContext, artifacts, acts, control, progress });
      await acts.recordPhase({
        key: `${workflowId}/${phase}/${attempts[phase]}`,
        workflowId,
        taskId: input.taskId,
        phase,
        state: outcome.kind,
        turns: progress.turns - before.turns,
        input: progress.tokens.input - before.input,
        output: progress.tokens.output - before.output,
        cacheRead: progress.tokens.cacheRead - before.cacheRead,
        cacheWrite: progress.tokens.cacheWrite - before.cacheWrite,
        costUsd: progress.costUsd - before.costUsd,
        durationMs: Date.now() - phaseStart,
        model: input.models[phase] ?? input.models.default,
        commitSha: progress.commit ?? null,
      });
      if (outcome.kind === 'verified') {
        if (ARTIFACT_VARIABLES[phase]) artifacts[ARTIFACT_VARIABLES[phase]] = `${workflowId}/artifact/${phase}`;
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
      await acts.rollbackWorktree({ worktreePath: worktree.path, sha: progress.commit ?? worktree.baseSha });
      progress.completedPhases = progress.completedPhases.slice(0, phases.indexOf(back));
      index = phases.indexOf(back);
    }

    if (outcome.kind === 'verified') {
      await acts.removeWorktree({ repoPath: input.repoPath, worktreePath: worktree.path });
      return await finish('completed', { summary: outcome.summary, verifyPassed: progress.lastVerify?.passed ?? true });
    }
    if (outcome.kind === 'rejected') {
      await acts.rollbackWorktree({ worktreePath: worktree.path, sha: progress.commit ?? worktree.baseSha });
      const result = await finish('rejected', { error: `rejected: ${outcome.reason}` });
      throw ApplicationFailure.create({ message: result.error!, type: 'TaskRejected', nonRetryable: true, details: [result] });
    }
    // A failed run keeps its worktree as the agent left it, for a person to inspect.
    const result = await finish('failed', { error: outcome.error });
    throw ApplicationFailure.create({ message: outcome.error, type: 'TaskFailed', nonRetryable: true, details: [result] });
  } catch (err) {
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(async () => {
        const wt = worktree;
        if (wt) await acts.rollbackWorktree({ worktreePath: wt.path, sha: progress.commit ?? wt.baseSha });
        await finish('cancelled');
      });
      throw err;
    }
    if (err instanceof ApplicationFailure && (err.type === 'TaskFailed' || err.type === 'TaskRejected')) throw err;
    const message = innermostMessage(err);
    const result = await finish('failed', { error: message });
    throw ApplicationFailure.create({ message, type: 'TaskFailed', nonRetryable: true, details: [result] });
  }
}

/** What the phase the work goes back to is told about the failure. */
function describeForRetry(phase: string, outcome: Exclude<PhaseOutcome, { kind: 'verified' }>): string {
  if (outcome.kind === 'rejected') return `The ${phase} phase was rejected: ${outcome.reason}`;
  return [`The ${phase} phase failed: ${outcome.error}`, outcome.output ? `Its output:\n${outcome.output}` : ''].filter(Boolean).join('\n');
}

