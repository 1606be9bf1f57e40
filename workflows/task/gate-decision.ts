import { isCancellation, workflowInfo } from '@temporalio/workflow';
import { innermostMessage } from '../../core/run/failure-message';
import { phaseAttemptKey } from '../../core/run/ids';
import type { GateConfig } from '../../core/run/run-types';
import type { DecideInput } from '../../core/run/definitions';
import type { PhaseAttempt, TaskRun } from './task-run';

/**
 * The decision at one of a task's configured gates (`beforePhase`, `afterVerify`): a person's,
 * or, with `by: model`, a model's (docs/roadmaps.md#ai-gates). A model's reject carries its
 * findings and asks for the phase again, as a person's `reject --retry` does; its `ask`, and a
 * failing gate model under `onModelError: ask`, wait for a person.
 */
export async function decideAtGate(args: PhaseAttempt, gate: string, config: GateConfig): Promise<DecideInput> {
  const { input, control, progress, acts } = args.run;
  const person = { deadline: config.deadline, defaultAction: config.defaultAction };
  if (config.by !== 'model') return control.waitAt(gate, person, { taskId: input.taskId });
  const model = config.model ?? input.models.default;
  progress.at({ phase: args.phase, activity: `gate ${gate} (model)` });
  let verdict;
  try {
    verdict = await acts.judgeGate({
      transcriptId: `${phaseAttemptKey(workflowInfo().workflowId, args.phase, args.attempt)}/gate`,
      taskId: input.taskId,
      title: input.title,
      description: input.description,
      gate,
      worktreePath: args.run.worktree.path,
      baseSha: args.run.worktree.baseSha,
      verifyArtifactId: progress.lastVerify?.artifactId,
      model,
      instructions: config.instructions,
      llm: input.llm,
      cassetteScope: workflowInfo().root?.workflowId ?? workflowInfo().workflowId,
    }, `gate ${gate} · model ${model}`);
  } catch (err) {
    if (isCancellation(err)) throw err;
    const why = `the gate's model failed: ${innermostMessage(err)}`;
    const fallback = config.onModelError ?? 'ask';
    if (fallback === 'fail') return { action: 'reject', by: `model ${model}`, reason: why };
    if (fallback === 'pass') return { action: 'approve', by: `model ${model}`, note: why };
    return control.waitAt(gate, person, { taskId: input.taskId, reason: why });
  }
  progress.ledger.spend(verdict.usage, verdict.costUsd);
  await progress.parent.spent();
  // An attempt of a best-of-N task is scored by its AI review too (docs/attempts.md#how-the-choice-is-made).
  progress.review = verdict.verdict;
  const by = `model ${model}`;
  if (verdict.verdict === 'approve') return { action: 'approve', by, ...(verdict.findings ? { note: verdict.findings } : {}) };
  if (verdict.verdict === 'reject') return { action: 'reject', by, reason: verdict.findings || 'rejected by the gate\'s model', retry: true };
  return control.waitAt(gate, person, { taskId: input.taskId, reason: `the gate's model asks a person: ${verdict.findings}` });
}

/** What the `unverified` gate tells the person who waits there. */
const UNVERIFIED_REASON =
  'verify: none found: no test command ran on this change. Approve to let it end (and land) untested, or reject it; ' +
  'name the tests in dex.config.yaml (`verify: [...]`), or `verify: []` to say the project has none';

/**
 * The `unverified` gate: a task for which no test command was found (task-start.ts) waits here
 * before it ends, so nothing lands untested unseen (docs/real-repositories.md#no-test-command-found).
 * Returns the reason of a reject; undefined when it may end.
 */
export async function passUnverified(run: TaskRun): Promise<string | undefined> {
  const { input, control, progress } = run;
  if (!progress.unverified) return undefined;
  const decision = await control.waitAt('unverified', {}, { taskId: input.taskId, reason: UNVERIFIED_REASON });
  if (decision.action === 'reject') return decision.reason;
  progress.unverifiedApprovedBy = decision.by || 'a person';
  progress.ledger.step(`unverified · let through by ${progress.unverifiedApprovedBy}`);
  return undefined;
}
