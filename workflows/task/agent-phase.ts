import { workflowInfo } from '@temporalio/workflow';
import { ARTIFACT_VARIABLES, CHANGING_PHASES, FINDING_PHASES } from '../../core/phases';
import type { FollowUp, TaskInput, VerifyResult } from '../../core/types';
import type { HostActivities } from './activities';
import { guardBudget } from '../run/budget-guard';
import type { RunControl } from '../run/run-control';
import { RunawayWatch } from './runaway-watch';
import type { TaskProgress } from './progress';

/** How one attempt at a phase ended; `output` is what a retry of an earlier phase is told. */
export type PhaseOutcome =
  | { kind: 'verified'; summary: string; verify: VerifyResult | undefined }
  | { kind: 'rejected'; reason: string }
  | { kind: 'failed'; error: string; output?: string };

/** Sent when the model ends a turn without tools and without a completion object. */
const COMPLETION_REMINDER =
  'End your turn with one completion object: {"status":"complete","summary":"…"}, {"status":"blocked","reason":"…"} or {"status":"continue","reason":"…"}.';

/** Everything one phase attempt needs. */
export interface PhaseArgs {
  input: TaskInput;
  phase: string;
  attempt: number;
  worktreePath: string;
  retryContext?: string;
  /** Artifacts of earlier phases for this phase's prompt, by prompt variable. */
  artifacts: Record<string, string>;
  acts: HostActivities;
  control: RunControl;
  progress: TaskProgress;
}

/**
 * One attempt at an agent phase: the model works through tool calls until it answers with a
 * completion object; in a phase that changes files, `complete` runs verify, and a failed
 * verify goes back to the model as the next turn's input (backpressure) until the iteration
 * cap. The budget is checked before every model call; a runaway phase waits at a gate.
 * Transcripts, tool results and verify reports live in the store; history holds their ids.
 */
export async function runAgentPhase(args: PhaseArgs): Promise<PhaseOutcome> {
  const { input, phase, attempt, worktreePath, acts, control, progress } = args;
  const { workflowId } = workflowInfo();
  const transcriptId = `${workflowId}/${phase}/${attempt}`;
  const model = input.models[phase] ?? input.models.default;
  const cassetteScope = workflowInfo().root?.workflowId ?? workflowId;
  const verifies = CHANGING_PHASES.has(phase) && input.verify.length > 0;
  const runaway = new RunawayWatch(input.runaway, CHANGING_PHASES.has(phase));

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
    phase,
    artifacts: args.artifacts,
  });

  let userSeq = 0;
  let followUp: FollowUp | undefined;
  for (let turn = 1; turn <= input.maxIterations; turn++) {
    await control.unpaused();
    if ((await guardBudget(input, control, progress)) === 'rejected') return { kind: 'rejected', reason: 'budget not raised' };
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
      let fingerprint: string | undefined;
      for (const use of reply.toolUses) {
        await control.unpaused();
        progress.at({ phase, turn, activity: `tool:${use.name}` });
        const result = await acts.runTool({
          transcriptId,
          assistantSeq,
          toolUseId: use.id,
          worktreePath,
          limits: input.toolLimits,
          sandbox: input.sandbox,
        });
        fingerprint = result.fingerprint ?? fingerprint;
      }
      followUp = { toolUseIds: reply.toolUses.map((u) => u.id) };
      const stuck = runaway.afterToolTurn(fingerprint);
      if (stuck && (await control.waitAt('runaway', {}, { taskId: input.taskId, reason: stuck })).action === 'reject') {
        return { kind: 'rejected', reason: `stopped as a runaway: ${stuck}` };
      }
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
      // In a checking phase, "blocked" is a finding: the phase fails and the retry map decides.
      if (FINDING_PHASES.has(phase)) return { kind: 'failed', error: `${phase} found problems`, output: completion.reason };
      const decision = await control.waitAt('blocked', {}, { taskId: input.taskId, reason: completion.reason });
      if (decision.action === 'reject') return { kind: 'rejected', reason: decision.reason };
      followUp = { text: `A person answered${decision.by ? ` (${decision.by})` : ''}: ${decision.note ?? 'go ahead'}` };
      continue;
    }

    if (ARTIFACT_VARIABLES[phase]) {
      await acts.keepPhaseArtifact({ transcriptId, seq: assistantSeq, artifactId: `${workflowId}/artifact/${phase}`, kind: phase });
    }
    if (!verifies) return { kind: 'verified', summary: completion.summary, verify: undefined };

    await control.unpaused();
    progress.at({ phase, turn, activity: 'verify' });
    const verify = await acts.verify({
      worktreePath,
      commands: input.verify,
      timeoutMs: 30 * 60_000,
      artifactId: `${transcriptId}/verify/${turn}`,
      sandbox: input.sandbox,
    });
    progress.lastVerify = verify;
    if (verify.passed) return { kind: 'verified', summary: completion.summary, verify };
    followUp = { artifactIds: [verify.artifactId], text: 'Verification failed (output above). Fix the cause, then complete again.' };
    const stuck = runaway.afterVerifyFailure(verify.tail);
    if (stuck && (await control.waitAt('runaway', {}, { taskId: input.taskId, reason: stuck })).action === 'reject') {
      return { kind: 'rejected', reason: `stopped as a runaway: ${stuck}` };
    }
  }
  const lastFailure = progress.lastVerify && !progress.lastVerify.passed ? progress.lastVerify.tail : undefined;
  return {
    kind: 'failed',
    error: `phase ${phase} used all ${input.maxIterations} turns without a verified completion`,
    output: lastFailure,
  };
}
