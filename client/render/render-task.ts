import type { TaskResult } from '../../core/task/task-types';
import { formatUsd, tokensDetail } from '../../core/text/spending';
import { plural } from '../../core/text/plural';

/** Why a task did not complete, beyond its error: the tail of the failing verify output and the worktree kept for a person. */
export function taskFailureLines(r: TaskResult): string[] {
  if (r.state === 'completed') return [];
  const tail = r.verifyTail?.trimEnd();
  const setupTail = r.setupTail?.trimEnd();
  return [
    ...(setupTail ? ['setup output (tail):', ...setupTail.split('\n').map((line) => `  ${line}`)] : []),
    ...(tail ? ['verify output (tail):', ...tail.split('\n').map((line) => `  ${line}`)] : []),
    ...(r.worktreePath ? [`worktree kept at ${r.worktreePath}`] : []),
  ];
}

/** A finished task's result as `dex status` shows it: its commit, tokens, cost and turns, and why it failed. */
export function renderTaskResult(r: TaskResult): string[] {
  return [
    ...(r.commit ? [`commit: ${r.commit} on ${r.branch}`] : []),
    ...(r.setup ? [`setup: ${r.setup}`] : []),
    `tokens: ${tokensDetail(r.tokens)} · ${formatUsd(r.costUsd)} · ${plural(r.turns, 'model turn')}`,
    ...taskFailureLines(r),
  ];
}
