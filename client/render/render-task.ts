import type { TaskResult } from '../../core/task/task-types';
import type { DrivenRun } from '../run/follow-run';

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
    `tokens: ${r.tokens.input} in / ${r.tokens.output} out · $${r.costUsd.toFixed(4)} · ${r.turns} turns`,
    ...taskFailureLines(r),
  ];
}

/** A task `dex task` (or `dex demo`) started, as text: how it ended in full, or where to watch it. */
export function describeTaskEnd(run: DrivenRun<TaskResult>): string {
  const { end } = run;
  if (!end) return `${run.workflowId} started${run.webUi ? `\nWeb UI: ${run.webUi}` : ''}`;
  const r = end.result;
  const lines = [`${run.workflowId}: ${end.state}${end.error ? ` — ${end.error}` : ''}`];
  if (r?.commit) lines.push(`commit: ${r.commit} on ${r.branch}`);
  if (r?.setup) lines.push(`setup: ${r.setup}`);
  if (r) {
    const t = r.tokens;
    lines.push(`tokens: ${t.input} input, ${t.output} output, ${t.cacheRead} cache read, ${t.cacheWrite} cache write`);
    lines.push(`cost: $${r.costUsd.toFixed(4)} over ${r.turns} model turns`);
    lines.push(...taskFailureLines(r));
  }
  if (end.state !== 'completed') lines.push(`what it did: dex log ${run.workflowId} · what it changed: dex diff ${run.workflowId}`);
  if (run.webUi) lines.push(`Web UI: ${run.webUi}`);
  return lines.join('\n');
}
