import { workflowInfo } from '@temporalio/workflow';
import { phaseArtifactId, verifyReportId } from '../../../core/run/ids';
import { ARTIFACT_VARIABLES, CHANGING_PHASES, FINDING_PHASES } from '../../../core/task/phases';
import type { FollowUp } from '../../../activities/model/call-model';
import type { Completion } from '../../../core/task/task-types';
import type { VerifyResult } from '../../../core/task/task-types';
import type { RunawayWatch } from './runaway-watch';
import type { PhaseAttempt } from '../task-run';
import { blockingChecks, describeChecks } from '../../../core/task/project-checks';
import { withCheckBaseline } from './check-baseline';

/**
 * What an agent phase does once its agent answers (dex's own loop, workflows/task/agent/agent-phase.ts,
 * or a Claude Code session, workflows/task/agent/claude-phase.ts): a completion object decides whether
 * the phase goes on, waits for a person, or is verified; a failed verify is what the agent is told next.
 */

/** How one attempt at a phase ended; `output` is what a retry of an earlier phase is told. */
export type PhaseOutcome =
  /** `allowedPaths`: protected paths a person allowed during the phase (a Claude Code session's writes): its commit does not ask again. */
  | { kind: 'verified'; summary: string; verify: VerifyResult | undefined; allowedPaths?: string[] }
  /** `retry`: the person asked for the phase again (docs/interfaces.md#people-in-the-loop). */
  | { kind: 'rejected'; reason: string; retry?: boolean }
  | { kind: 'failed'; error: string; output?: string }
  /** The agent said the step does not fit the work (docs/roadmaps.md#the-planner-and-escalate). */
  | { kind: 'escalated'; reason: string };

/** A command line cut to a summary's length. */
const stepText = (text: string): string => (text.length > 80 ? `${text.slice(0, 79)}…` : text);

/** Sent when the agent ends a turn without tools and without a completion object. */
export const COMPLETION_REMINDER =
  'End your turn with one completion object: {"status":"complete","summary":"…"}, {"status":"blocked","reason":"…"} or {"status":"continue","reason":"…"}.';

/** One model turn of a phase attempt: where its transcript is and what watches it. */
export interface Turn extends PhaseAttempt {
  transcriptId: string;
  turn: number;
  /** Sequence number of the turn's assistant message in the transcript. */
  assistantSeq: number;
  runaway: RunawayWatch;
}

/** A turn's end: the phase's outcome, or what the next model call is told. */
export type TurnEnd = PhaseOutcome | { followUp: FollowUp };

/** The reason a runaway phase stops, once a person rejected it at the `runaway` gate; undefined to go on. */
export async function stoppedAsRunaway(t: Turn, stuck: string | undefined): Promise<PhaseOutcome | undefined> {
  if (!stuck) return undefined;
  // An attempt of a best-of-N task waits for no person: the others go on, and choosing is the one decision (docs/attempts.md#attempts-wait-for-no-one).
  if (t.run.input.attempt) return { kind: 'rejected', reason: `stopped as a runaway: ${stuck}` };
  const decision = await t.run.control.waitAt('runaway', {}, { taskId: t.run.input.taskId, reason: stuck });
  return decision.action === 'reject' ? { kind: 'rejected', reason: `stopped as a runaway: ${stuck}` } : undefined;
}

/** A turn without tools: its completion object decides (continue, a person's answer, or verify). */
export async function answerCompletion(t: Turn, completion: Completion | null | undefined): Promise<TurnEnd> {
  const { phase } = t;
  const { input, control } = t.run;
  if (!completion) return { followUp: { text: COMPLETION_REMINDER } };
  if (completion.status === 'continue') return { followUp: { text: 'Continue.' } };
  if (completion.status === 'escalate') return { kind: 'escalated', reason: completion.reason };
  if (completion.status === 'blocked') {
    // In a checking phase, "blocked" is a finding: the phase fails and the retry map decides.
    if (FINDING_PHASES.has(phase)) return { kind: 'failed', error: `${phase} found problems`, output: completion.reason };
    if (input.attempt) return { kind: 'rejected', reason: `it asked a person: ${completion.reason}` };
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
  const commands = t.run.verify;
  const checks = t.run.checks;
  if (!CHANGING_PHASES.has(phase) || (commands.length === 0 && checks.length === 0)) return { kind: 'verified', summary, verify: undefined };
  await control.unpaused();
  progress.at({ phase, turn, activity: 'verify' });
  const verify = await acts.verify({
    worktreePath,
    commands,
    timeoutMs: 30 * 60_000,
    artifactId: verifyReportId(t.transcriptId, turn),
    sandbox: input.sandbox,
    ...(progress.baseline ? { baseline: progress.baseline } : {}),
    ...(checks.length ? { checks } : {}),
  }, `verify · ${stepText([...commands, ...checks.map((c) => c.command)].join(' && '))}`).then((ran) => withCheckBaseline(t.run, ran));
  progress.lastVerify = verify;
  if (verify.checks) progress.ledger.step(`checks · ${describeChecks(verify.checks)}`);
  if (verify.passed) return { kind: 'verified', summary, verify };
  const stopped = await stoppedAsRunaway(t, t.runaway.afterVerifyFailure(verify.tail, verify.cause));
  return stopped ?? { followUp: { artifactIds: [verify.artifactId], text: verifyFailedText(verify) } };
}

/** What the agent is told when verify failed: the report is above; which checks are its own, and which fail on the base too. */
function verifyFailedText(verify: VerifyResult): string {
  const text = 'Verification failed (output above). Fix the cause, then complete again.';
  const own = blockingChecks(verify.checks).map((c) => c.name);
  const before = (verify.checks ?? []).filter((c) => c.preExisting).map((c) => c.name);
  return [
    text,
    ...(own.length ? [`Checks that fail because of your change: ${own.join(', ')}.`] : []),
    ...(before.length ? [`Checks that fail on the base commit too (not yours to fix, they do not block you): ${before.join(', ')}.`] : []),
  ].join('\n');
}
