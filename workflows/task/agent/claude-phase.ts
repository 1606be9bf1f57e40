import { workflowInfo } from '@temporalio/workflow';
import { guardBudget } from '../../run/budget-guard';
import type { ClaudeSessionResult } from '../../../activities/claude/claude-session';
import { plural } from '../../../core/text/plural';
import type { RunawayWatch } from './runaway-watch';
import type { PhaseAttempt } from '../task-run';
import { answerCompletion, COMPLETION_REMINDER, type PhaseOutcome, type Turn } from './phase-completion';

/**
 * One attempt at a phase as a Claude Code session (docs/claude-code.md): the session works in
 * stretches, each one `runClaudeSession` activity that ends when the session ends its turn, asks to
 * write a protected path, or spends its allowance. Between stretches the workflow does what it
 * does for dex's own agent: verify a completion (a failure is the next stretch's prompt), wait at
 * the protected path's gate, or at the budget gate. The session's steps show in the run's status
 * and `dex log`; its messages live in the store, history holds the stretch's summary.
 */
export async function runClaudePhase(args: PhaseAttempt, transcriptId: string, model: string, runaway: RunawayWatch): Promise<PhaseOutcome> {
  const { phase } = args;
  const { input, acts, control, progress } = args.run;
  const allowedPaths: string[] = [];
  let followUp: string | undefined;
  for (let stretch = 1; stretch <= input.maxIterations; stretch++) {
    await control.unpaused();
    if ((await guardBudget(progress.ledger, control, { taskId: input.taskId })) === 'rejected') return { kind: 'rejected', reason: 'budget not raised' };
    progress.at({ phase, turn: stretch, activity: 'claude-code' });
    const session: ClaudeSessionResult = await acts.runClaudeSession({
      transcriptId,
      stretch,
      worktreePath: args.run.worktree.path,
      taskId: input.taskId,
      phase,
      model,
      llm: input.llm,
      cassetteScope: workflowInfo().root?.workflowId ?? workflowInfo().workflowId,
      sandbox: input.sandbox,
      protectedPaths: input.protectedPaths,
      allowedPaths,
      ...(followUp ? { followUp } : {}),
      allowance: args.run.budget.allowance(),
      ...(input.claude ? { claude: input.claude } : {}),
    }, `claude-code · ${model}${stretch > 1 ? ` · stretch ${stretch}` : ''}`);
    progress.ledger.spend(session.usage, session.costUsd, session.answers);
    await progress.parent.spent();

    if (session.end === 'budget') {
      followUp = 'Go on with the work.';
      continue; // the budget gate at the top of the loop waits for a person
    }
    if (session.end === 'protected' && session.protectedWrite) {
      const { path } = session.protectedWrite;
      const decision = await control.waitAt(`protected:${phase}`, {}, { taskId: input.taskId, reason: `the session asks to change the protected path ${path}` });
      if (decision.action === 'reject') return { kind: 'rejected', reason: decision.reason, retry: decision.retry };
      allowedPaths.push(path);
      followUp = `A person allowed the change to ${path}${decision.note ? `: ${decision.note}` : ''}. Make it now and go on.`;
      continue;
    }
    const turn: Turn = { ...args, transcriptId, turn: session.lastTurn, assistantSeq: session.lastSeq, runaway };
    const next = await answerCompletion(turn, session.completion);
    if ('kind' in next) return next.kind === 'verified' && allowedPaths.length ? { ...next, allowedPaths } : next;
    // A failed verify's report is told as text: the session reads no stored artifacts.
    const failed = next.followUp.artifactIds?.length && progress.lastVerify ? `Verification failed:\n${progress.lastVerify.tail}\n\n` : '';
    followUp = `${failed}${next.followUp.text ?? COMPLETION_REMINDER}`;
  }
  return { kind: 'failed', error: `phase ${phase} used all ${plural(input.maxIterations, 'stretch')} of its Claude Code session without a verified completion` };
}
