import { workflowInfo } from '@temporalio/workflow';
import { FAILURE, nonRetryable } from '../../core/run/failure-types';
import { phaseArtifactId, phaseAttemptKey, verifyReportId } from '../../core/run/ids';
import { ARTIFACT_VARIABLES, CHANGING_PHASES, FINDING_PHASES } from '../../core/task/phases';
import { thinkingBudget } from '../../core/run/model-choice';
import type { FollowUp, ModelCallInput, ModelCallResult } from '../../activities/model/call-model';
import type { VerifyResult } from '../../activities/verify/verify';
import type { Completion } from '../../core/task/task-types';
import { guardBudget } from '../run/budget-guard';
import { RunawayWatch } from './runaway-watch';
import type { PhaseAttempt } from './task-run';
import { plural } from '../../core/text/plural';

/** A command line cut to a summary's length. */
const stepText = (text: string): string => (text.length > 80 ? `${text.slice(0, 79)}…` : text);

/** How one attempt at a phase ended; `output` is what a retry of an earlier phase is told. */
export type PhaseOutcome =
  | { kind: 'verified'; summary: string; verify: VerifyResult | undefined }
  /** `retry`: the person asked for the phase again (docs/interfaces.md#people-in-the-loop). */
  | { kind: 'rejected'; reason: string; retry?: boolean }
  | { kind: 'failed'; error: string; output?: string }
  /** The agent said the step does not fit the work (docs/roadmaps.md#the-planner-and-escalate). */
  | { kind: 'escalated'; reason: string };

/** Sent when the model ends a turn without tools and without a completion object. */
const COMPLETION_REMINDER =
  'End your turn with one completion object: {"status":"complete","summary":"…"}, {"status":"blocked","reason":"…"} or {"status":"continue","reason":"…"}.';

/**
 * One attempt at an agent phase: the model works through tool calls until it answers with a
 * completion object; in a phase that changes files, `complete` runs verify, and a failed
 * verify goes back to the model as the next turn's input (backpressure) until the iteration
 * cap. The budget is checked before every model call; a runaway phase waits at a gate.
 * Transcripts, tool results and verify reports live in the store; history holds their ids.
 */
export async function runAgentPhase(args: PhaseAttempt): Promise<PhaseOutcome> {
  const { phase, attempt } = args;
  const { input, acts, control, progress } = args.run;
  const worktreePath = args.run.worktree.path;
  const { workflowId } = workflowInfo();
  const transcriptId = phaseAttemptKey(workflowId, phase, attempt);
  const model = input.models[phase] ?? input.models.default;
  const cassetteScope = workflowInfo().root?.workflowId ?? workflowId;
  const runaway = new RunawayWatch(input.runaway, CHANGING_PHASES.has(phase));
  const budgetTokens = thinkingBudget(input.thinking, phase);
  const thinking = budgetTokens ? { thinkingBudget: budgetTokens } : {};

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
    ...(progress.baseline?.length ? { preExistingFailures: progress.baseline } : {}),
    phase,
    artifacts: args.artifacts,
    ...(input.memory ? { memory: input.memory, repoPath: input.repoPath } : {}),
  }, `${phase} · context`);

  let userSeq = 0;
  let followUp: FollowUp | undefined;
  for (let turn = 1; turn <= input.maxIterations; turn++) {
    await control.unpaused();
    if ((await guardBudget(progress.ledger, control, { taskId: input.taskId })) === 'rejected') return { kind: 'rejected', reason: 'budget not raised' };
    progress.at({ phase, turn, activity: 'model' });
    const call = { transcriptId, userSeq, followUp, taskId: input.taskId, phase, model, maxTokens: input.maxTokens, llm: input.llm, cassetteScope, ...thinking };
    const reply = await reservedCall(args, call, `turn ${turn} · model ${model}`);
    if (reply === 'rejected') return { kind: 'rejected', reason: 'budget not raised' };
    progress.ledger.spend(reply.usage, reply.costUsd);
    await progress.parent.spent();
    const turnOf = { ...args, transcriptId, turn, assistantSeq: userSeq + 1, runaway };
    userSeq += 2;
    const next = reply.toolUses.length > 0 ? await runToolCalls(turnOf, reply.toolUses) : await answerCompletion(turnOf, reply.completion);
    if ('kind' in next) return next;
    followUp = next.followUp;
  }
  const lastFailure = progress.lastVerify && !progress.lastVerify.passed ? progress.lastVerify.tail : undefined;
  return { kind: 'failed', error: `phase ${phase} used all ${plural(input.maxIterations, 'turn')} without a verified completion`, output: lastFailure };
}

/**
 * A model call within the budgets: the activity makes the call only when its worst case fits
 * the allowance; otherwise it says what that worst case is, the task reserves it (a gate, or a
 * grant from the roadmap), and asks again. `rejected` when a person would not raise a budget.
 */
async function reservedCall(args: PhaseAttempt, call: ModelCallInput, summary: string): Promise<ModelCallResult | 'rejected'> {
  for (let deferred = 0; ; deferred++) {
    // A reservation that was granted must let the call through; going round again would never end.
    if (deferred > 2) throw nonRetryable(FAILURE.BudgetReservation, `the budget reservation for ${summary} was granted but the call still did not fit`);
    const reply = await args.run.acts.callModel({ ...call, allowance: args.run.budget.allowance() }, summary);
    if (!('deferred' in reply)) return reply;
    if ((await args.run.budget.reserve(reply.worst)) === 'rejected') return 'rejected';
  }
}

/** One model turn of a phase attempt: where its transcript is and what watches it. */
interface Turn extends PhaseAttempt {
  transcriptId: string;
  turn: number;
  /** Sequence number of the turn's assistant message in the transcript. */
  assistantSeq: number;
  runaway: RunawayWatch;
}

/** A turn's end: the phase's outcome, or what the next model call is told. */
type TurnEnd = PhaseOutcome | { followUp: FollowUp };

/** The reason a runaway phase stops, once a person rejected it at the `runaway` gate; undefined to go on. */
async function stoppedAsRunaway(t: Turn, stuck: string | undefined): Promise<PhaseOutcome | undefined> {
  if (!stuck) return undefined;
  const decision = await t.run.control.waitAt('runaway', {}, { taskId: t.run.input.taskId, reason: stuck });
  return decision.action === 'reject' ? { kind: 'rejected', reason: `stopped as a runaway: ${stuck}` } : undefined;
}

/** Runs the turn's tool calls one by one; the next call gets their results. */
async function runToolCalls(t: Turn, uses: { id: string; name: string; step?: string }[]): Promise<TurnEnd> {
  const { phase, turn } = t;
  const { input, acts, control, progress } = t.run;
  const worktreePath = t.run.worktree.path;
  let fingerprint: string | undefined;
  for (const use of uses) {
    await control.unpaused();
    progress.at({ phase, turn, activity: `tool:${use.name}` });
    const result = await acts.runTool({
      transcriptId: t.transcriptId,
      assistantSeq: t.assistantSeq,
      toolUseId: use.id,
      worktreePath,
      limits: input.toolLimits,
      sandbox: input.sandbox,
      ...(input.memory ? { memoryRepo: input.repoPath } : {}),
    }, `turn ${turn} · ${use.step ?? use.name}`);
    fingerprint = result.fingerprint ?? fingerprint;
  }
  return (await stoppedAsRunaway(t, t.runaway.afterToolTurn(fingerprint))) ?? { followUp: { toolUseIds: uses.map((u) => u.id) } };
}

/** A turn without tools: its completion object decides (continue, a person's answer, or verify). */
async function answerCompletion(t: Turn, completion: Completion | null | undefined): Promise<TurnEnd> {
  const { phase } = t;
  const { input, control } = t.run;
  if (!completion) return { followUp: { text: COMPLETION_REMINDER } };
  if (completion.status === 'continue') return { followUp: { text: 'Continue.' } };
  if (completion.status === 'escalate') return { kind: 'escalated', reason: completion.reason };
  if (completion.status === 'blocked') {
    // In a checking phase, "blocked" is a finding: the phase fails and the retry map decides.
    if (FINDING_PHASES.has(phase)) return { kind: 'failed', error: `${phase} found problems`, output: completion.reason };
    const decision = await control.waitAt('blocked', {}, { taskId: input.taskId, reason: completion.reason });
    if (decision.action === 'reject') return { kind: 'rejected', reason: decision.reason, retry: decision.retry };
    return { followUp: { text: `A person answered${decision.by ? ` (${decision.by})` : ''}: ${decision.note ?? 'go ahead'}` } };
  }
  return verifyCompletion(t, completion.summary);
}

/** `complete`: keeps the phase's artifact, then, in a phase that changes files, verifies; a failure goes back to the model. */
async function verifyCompletion(t: Turn, summary: string): Promise<TurnEnd> {
  const { phase, turn } = t;
  const { input, acts, control, progress } = t.run;
  const worktreePath = t.run.worktree.path;
  const { workflowId } = workflowInfo();
  if (ARTIFACT_VARIABLES[phase]) {
    const artifactId = phaseArtifactId(workflowId, phase);
    await acts.keepPhaseArtifact({ transcriptId: t.transcriptId, seq: t.assistantSeq, artifactId, kind: phase }, `${phase} · keep artifact`);
  }
  if (!CHANGING_PHASES.has(phase) || input.verify.length === 0) return { kind: 'verified', summary, verify: undefined };
  await control.unpaused();
  progress.at({ phase, turn, activity: 'verify' });
  const verify = await acts.verify({
    worktreePath,
    commands: input.verify,
    timeoutMs: 30 * 60_000,
    artifactId: verifyReportId(t.transcriptId, turn),
    sandbox: input.sandbox,
    ...(progress.baseline ? { baseline: progress.baseline } : {}),
  }, `verify · ${stepText(input.verify.join(' && '))}`);
  progress.lastVerify = verify;
  if (verify.passed) return { kind: 'verified', summary, verify };
  const stopped = await stoppedAsRunaway(t, t.runaway.afterVerifyFailure(verify.tail));
  return stopped ?? { followUp: { artifactIds: [verify.artifactId], text: 'Verification failed (output above). Fix the cause, then complete again.' } };
}
