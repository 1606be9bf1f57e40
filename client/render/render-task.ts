import type { TaskResult } from '../../core/task/task-types';
import { failureCause } from '../../core/task/verify-failures';
import { formatUsd, tokensDetail } from '../../core/text/spending';
import { plural } from '../../core/text/plural';
import { attemptLines } from '../../core/text/attempt-table';

/** `lines` indented under a heading line. */
const indented = (lines: string): string[] => lines.split('\n').map((line) => `  ${line}`);

/**
 * Why a task did not complete, beyond its error: what made verify fail (picked from its whole
 * output; for results of older releases, from the tail), the tail itself for detail, and the
 * worktree kept for a person.
 */
export function taskFailureLines(r: TaskResult): string[] {
  if (r.state === 'completed') return [];
  const tail = r.verifyTail?.trimEnd();
  const setupTail = r.setupTail?.trimEnd();
  const cause = r.verifyCause ?? (tail ? failureCause(tail) : undefined);
  const [first, ...more] = cause?.split('\n') ?? [];
  return [
    ...(setupTail ? ['setup output (tail):', ...indented(setupTail)] : []),
    ...(first ? [`verify failed: ${first}`, ...more.map((line) => `  ${line}`)] : []),
    ...(tail ? ['verify output (tail):', ...indented(tail)] : []),
    ...(r.worktreePath ? [`worktree kept at ${r.worktreePath}`] : []),
  ];
}

/** A task's type and steps, and its verify failures told apart (docs/roadmaps.md): from its status while it runs, its result once it ended. */
export function taskShapeLines(
  r: Pick<TaskResult, 'type' | 'steps' | 'verify' | 'preExistingFailures' | 'verifyDetected' | 'checks' | 'unverifiedApprovedBy' | 'worker' | 'moves' | 'attempts' | 'chosen'>,
): string[] {
  const lines: string[] = [];
  // A fleet task (docs/fleet.md#seeing-the-fleet): where it runs, and every move from a lost worker.
  if (r.worker) lines.push(`worker: ${r.worker}`);
  for (const m of r.moves ?? []) lines.push(`moved from ${m.from} to ${m.to} at ${m.at}: ${m.why}`);
  // Said like `setup:`: which commands verify runs when dex picked them, or `none found` (docs/real-repositories.md#no-test-command-found).
  const letThrough = r.unverifiedApprovedBy ? ` (nothing tested: ${r.unverifiedApprovedBy} let it through the unverified gate)` : '';
  if (r.verifyDetected) lines.push(`verify: ${r.verifyDetected}${letThrough}`);
  // The project's own checks besides its tests, each on its own (docs/real-repositories.md#checks-besides-tests).
  if (r.checks) lines.push(`checks: ${r.checks}`);
  // A best-of-N task (docs/attempts.md): each attempt's evidence, and which one was chosen and why.
  if (r.attempts?.length) lines.push(...attemptLines(r.attempts, r.chosen));
  if (r.type || r.steps) {
    const s = r.steps;
    const steps = s
      ? [`${s.completed.join(', ') || 'none'} completed`, ...(s.current ? [`now ${s.current}`] : []), ...(s.pending.length ? [`${s.pending.join(', ')} ${s.current ? 'to come' : 'not reached'}`] : [])]
      : [];
    lines.push([r.type ? `type: ${r.type}` : 'steps', ...steps].join(' · '));
  }
  const preExisting = r.verify?.preExisting ?? r.preExistingFailures ?? [];
  if (preExisting.length) lines.push(`${plural(preExisting.length, 'verify failure')} the base commit already had (not blocking):`, ...preExisting.map((f) => `  ${f}`));
  if (r.verify?.newFailures.length) lines.push(`${plural(r.verify.newFailures.length, 'new verify failure')}:`, ...r.verify.newFailures.map((f) => `  ${f}`));
  return lines;
}

/** A finished task's result as `dex status` shows it: its commit, type and steps, tokens, cost and turns, and why it failed. */
export function renderTaskResult(r: TaskResult): string[] {
  return [
    ...(r.commit ? [`commit: ${r.commit} on ${r.branch}`] : []),
    ...(r.setup ? [`setup: ${r.setup}`] : []),
    `tokens: ${tokensDetail(r.tokens)} · ${formatUsd(r.costUsd)} · ${plural(r.turns, 'model turn')}`,
    ...taskShapeLines(r),
    ...taskFailureLines(r),
  ];
}
