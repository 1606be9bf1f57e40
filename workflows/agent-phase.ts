import { workflowInfo } from '@temporalio/workflow';
import type { FollowUp, TaskInput, VerifyResult } from '../core/types';
import type { HostActivities } from './activity-proxies';
import type { RunControl } from './run-control';
import type { TaskProgress } from './task-progress';

/** How one attempt at a phase ended. */
export type PhaseOutcome =
  | { kind: 'verified'; summary: string; verify: VerifyResult | undefined }
  | { kind: 'rejected'; reason: string }
  | { kind: 'failed'; error: string };

/** Sent when the model ends a turn without tools and without a completion object. */
const COMPLETION_REMINDER =
  'End your turn with one completion object: {"status":"complete","summary":"…"}, {"status":"blocked","reason":"…"} or {"status":"continue","reason":"…"}.';

/**
 * One attempt at an agent phase: the model works through tool calls until it answers with a
 * completion object; `complete` runs verify, and a failed verify goes back to the model as
 * the next turn's input (backpressure) until the iteration cap. Transcripts, tool results
 * and verify reports live in the store; only their ids pass through history.
 */
export async function runAgentPhase(args: {
  input: TaskInput;
  phase: string;
  attempt: number;
  worktreePath: string;
  retryContext?: string;
  acts: HostActivities;
  control: RunControl;
  progress: TaskProgress;
}): Promise<PhaseOutcome> {
  const { input, phase, attempt, worktreePath, acts, control, progress } = args;
  const { workflowId } = workflowInfo();
  const transcriptId = `${workflowId}/${phase}/${attempt}`;
  const model = input.models[phase] ?? input.models.default;
  const cassetteScope = workflowInfo().root?.workflowId ?? workflowId;

  await control.unpaused();
  progress.at({ phase, activity: 'fetch' });
  await acts.fetchContext({
    transcriptId,
    worktreePath,
    taskId: input.taskId,
    title: input.title,
    description: input.description,
    retryContext: args.retryContext,
    verify: input.verify,
  });

  let userSeq = 0;
  let followUp: FollowUp | undefined;
  for (let turn = 1; turn <= input.maxIterations; turn++) {
    await control.unpaused();
    progress.at({ phase, turn, activity: 'model' });
    const reply = await acts.callModel({
      transcriptId,
      userSeq,
      followUp,
      taskId: input.taskId,
      phase,
      model,
      maxTokens: input.maxTokens,
      llm: input.llm,
      cassetteScope,
    });
    progress.addUsage(reply.usage, reply.costUsd);
    const assistantSeq = userSeq + 1;
    userSeq += 2;
    followUp = undefined;

    if (reply.toolUses.length > 0) {
      for (const use of reply.toolUses) {
        await control.unpaused();
        progress.at({ phase, turn, activity: `tool:${use.name}` });
        await acts.runTool({ transcriptId, assistantSeq, toolUseId: use.id, worktreePath, limits: input.toolLimits });
      }
      followUp = { toolUseIds: reply.toolUses.map((u) => u.id) };
      continue;
    }

    const completion = reply.completion;
    if (!completion) {
      followUp = { text: COMPLETION_REMINDER };
      continue;
    }
    if (completion.status === 'continue') {
      followUp = { text: 'Continue.' };
      continue;
    }
    if (completion.status === 'blocked') {
      const decision = await control.waitAt('blocked', {}, { taskId: input.taskId, reason: completion.reason });
      if (decision.action === 'reject') return { kind: 'rejected', reason: decision.reason };
      followUp = { text: `A person answered${decision.by ? ` (${decision.by})` : ''}: ${decision.note ?? 'go ahead'}` };
      continue;
    }

    await control.unpaused();
    progress.at({ phase, turn, activity: 'verify' });
    const verify = input.verify.length
      ? await acts.verify({
          worktreePath,
          commands: input.verify,
          timeoutMs: 30 * 60_000,
          artifactId: `${transcriptId}/verify/${turn}`,
        })
      : undefined;
    progress.lastVerify = verify;
    if (verify && !verify.passed) {
      followUp = { artifactIds: [verify.artifactId], text: 'Verification failed (output above). Fix the cause, then complete again.' };
      continue;
    }
    return { kind: 'verified', summary: completion.summary, verify };
  }
  return { kind: 'failed', error: `phase ${phase} used all ${input.maxIterations} turns without a verified completion` };
}
