import { patched, workflowInfo } from '@temporalio/workflow';
import { FAILURE, nonRetryable } from '../../../core/run/failure-types';
import { phaseAttemptKey } from '../../../core/run/ids';
import { CHANGING_PHASES } from '../../../core/task/phases';
import { thinkingBudget } from '../../../core/run/model-choice';
import type { FollowUp, ModelCallInput, ModelCallResult } from '../../../activities/model/call-model';
import { guardBudget } from '../../run/budget-guard';
import { READING_CHAIN_MS } from '../../run/policies';
import { RunawayWatch } from './runaway-watch';
import type { PhaseAttempt } from '../task-run';
import { causeOnOneLine } from '../../../core/task/verify-failures';
import { plural } from '../../../core/text/plural';
import { agentOf } from '../../../core/task/agent-engine';
import { runClaudePhase } from './claude-phase';
import { answerCompletion, stoppedAsRunaway, type Turn, type TurnEnd } from './phase-completion';


import type { PhaseOutcome } from './phase-completion';
import { recordState } from '../fleet/take-up';
export type { PhaseOutcome } from './phase-completion';


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
  // An attempt of a best-of-N task may sample at its own temperature; thinking needs the default (docs/attempts.md).
  const temperature = input.attempt?.variant.temperature;
  const thinking = budgetTokens ? { thinkingBudget: budgetTokens } : temperature !== undefined ? { temperature } : {};
  const agent = agentOf(input.agents, phase);

  await control.unpaused();
  progress.at({ phase, activity: 'fetch' });
  await acts.fetchContext({
    transcriptId,
    worktreePath,
    taskId: input.taskId,
    title: input.title,
    description: input.description,
    retryContext: args.retryContext,
    verify: args.run.verify,
    ...(progress.baseline?.length ? { preExistingFailures: progress.baseline } : {}),
    phase,
    artifacts: args.artifacts,
    ...(input.memory ? { memory: input.memory, repoPath: input.repoPath } : {}),
    ...(agent === 'claude-code' ? { agent } : {}),
  }, `${phase} · context`);

  if (agent === 'claude-code') return runClaudePhase(args, transcriptId, model, runaway);
  const chained = patched(READING_TURNS_PATCH);
  /** The turn whose user message is at `userSeq`, as the steps after its model call see it. */
  const turnAt = (turn: number, userSeq: number): Turn => ({ ...args, transcriptId, turn, assistantSeq: userSeq + 1, runaway });
  let userSeq = 0;
  let followUp: FollowUp | undefined;
  for (let turn = 1; turn <= input.maxIterations; turn++) {
    await control.unpaused();
    if ((await guardBudget(progress.ledger, control, { taskId: input.taskId })) === 'rejected') return { kind: 'rejected', reason: 'budget not raised' };
    progress.at({ phase, turn, activity: 'model' });
    const moreTurns = chained ? Math.min(input.maxIterations - turn, runaway.unchangedTurnsLeft()) : 0;
    const chain = chained ? { chain: { moreTurns, forMs: READING_CHAIN_MS } } : {};
    const call = { transcriptId, userSeq, followUp, taskId: input.taskId, phase, model, maxTokens: input.maxTokens, llm: input.llm, cassetteScope, ...thinking, reads: { worktreePath, limits: input.toolLimits }, ...chain };
    // The Web UI shows the summary: a call that may answer reading turns after its first says so, or the turn numbers would seem to jump.
    const reply = await reservedCall(args, call, `turn ${turn} · model ${model}${moreTurns > 0 ? ', then any reading turns' : ''}`);
    if (reply === 'rejected') return { kind: 'rejected', reason: 'budget not raised' };
    progress.ledger.spend(reply.usage, reply.costUsd);
    await progress.parent.spent();
    // The reading turns the call answered before its last reply, as if each had been a call of its own.
    for (let more = 1; more < (reply.turns ?? 1); more++) {
      const stopped = await stoppedAsRunaway(turnAt(turn, userSeq), runaway.afterToolTurn(undefined));
      if (stopped) return stopped;
      turn++;
      userSeq += 2;
      progress.at({ phase, turn, activity: 'model' });
    }
    const turnOf = turnAt(turn, userSeq);
    userSeq += 2;
    const next = reply.toolUses.length > 0 ? await runToolCalls(turnOf, reply.toolUses, reply.toolsRun) : await answerCompletion(turnOf, reply.completion);
    if ('kind' in next) return next;
    followUp = next.followUp;
  }
  const failed = progress.lastVerify && !progress.lastVerify.passed ? progress.lastVerify : undefined;
  // The task's one line (the Web UI's failure, `dex status`) says what kept verify red, when verify named it.
  const why = failed?.cause ? `: verify failed: ${causeOnOneLine(failed.cause)}` : '';
  return { kind: 'failed', error: `phase ${phase} used all ${plural(input.maxIterations, 'turn')} without a verified completion${why}`, output: failed?.tail };
}

/** The patch from which a model call answers the reading turns after its reply itself (activities/model/reading-turns.ts). */
const READING_TURNS_PATCH = 'reading-turns-in-one-call';

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

/** How a turn's tool calls read in a summary and in `dex status`: the steps, cut to a line. */
function stepsOf(uses: { name: string; step?: string }[]): string {
  const steps = uses.map((u) => u.step ?? u.name).join(', ');
  return steps.length > 120 ? `${steps.slice(0, 119)}…` : steps;
}

/**
 * The turn's tool calls are done; the next model call gets their results. A reply that only
 * reads had its reads run by its own model call (`toolsRun`; activities/model/reads-in-turn.ts),
 * which takes no fingerprint, as read-only tools never did.
 */
async function runToolCalls(t: Turn, uses: { id: string; name: string; step?: string }[], ranByModelCall = false): Promise<TurnEnd> {
  const fingerprint = ranByModelCall ? undefined : await toolActivities(t, uses);
  // A fleet task's changed files go to the forge at once: a worker lost later costs at most the next turn.
  if (fingerprint !== undefined) await recordState(t.run, fingerprint);
  return (await stoppedAsRunaway(t, t.runaway.afterToolTurn(fingerprint))) ?? { followUp: { toolUseIds: uses.map((u) => u.id) } };
}

/**
 * Runs the turn's tool calls, in order; returns the worktree's fingerprint after them. Since
 * `turn-tools-in-one-activity` they are one activity (docs/performance.md#tool-calls-of-one-turn), so
 * a pause takes effect after the turn's tools rather than between them; runs started before it
 * replay with one activity per call.
 */
async function toolActivities(t: Turn, uses: { id: string; name: string; step?: string }[]): Promise<string | undefined> {
  const { phase, turn } = t;
  const { input, acts, control, progress } = t.run;
  const tool = {
    transcriptId: t.transcriptId,
    assistantSeq: t.assistantSeq,
    worktreePath: t.run.worktree.path,
    limits: input.toolLimits,
    sandbox: input.sandbox,
    ...(input.memory ? { memoryRepo: input.repoPath } : {}),
  };
  if (patched('turn-tools-in-one-activity')) {
    await control.unpaused();
    progress.at({ phase, turn, activity: uses.length === 1 ? `tool:${uses[0].name}` : `tools:${uses.map((u) => u.name).join(',')}` });
    return (await acts.runTurnTools({ ...tool, toolUseIds: uses.map((u) => u.id) }, `turn ${turn} · ${stepsOf(uses)}`)).fingerprint;
  }
  let fingerprint: string | undefined;
  for (const use of uses) {
    await control.unpaused();
    progress.at({ phase, turn, activity: `tool:${use.name}` });
    const result = await acts.runTool({ ...tool, toolUseId: use.id }, `turn ${turn} · ${use.step ?? use.name}`);
    fingerprint = result.fingerprint ?? fingerprint;
  }
  return fingerprint;
}
