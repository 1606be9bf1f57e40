import type { TaskInput, TaskResult } from '../core/types';
import type { Output } from './cli-context';
import type { Connections } from './connection';
import { driveRun, type DrivenRun } from './drive-run';
import type { Settings } from './settings';

export { exitCodeFor } from './drive-run';

/** Starts a checked task input as a `taskWorkflow` (see driveRun). */
export function driveTask(
  input: TaskInput,
  repoName: string,
  settings: Settings,
  out: Output,
  opts: { detach?: boolean; connections?: Connections } = {},
): Promise<DrivenRun<TaskResult>> {
  return driveRun<TaskResult>(
    { workflowType: 'taskWorkflow', idPrefix: `task-${repoName}-${input.taskId}`, args: [input], unsandboxed: input.sandbox?.mode === 'off' },
    settings,
    out,
    opts,
  );
}

/** A finished task as text. */
export function describeTaskEnd(run: DrivenRun<TaskResult>): string {
  const { end } = run;
  if (!end) return `${run.workflowId} started${run.webUi ? `\nWeb UI: ${run.webUi}` : ''}`;
  const r = end.result;
  const lines = [`${run.workflowId}: ${end.state}${end.error ? ` — ${end.error}` : ''}`];
  if (r?.commit) lines.push(`commit: ${r.commit} on ${r.branch}`);
  if (r) {
    const t = r.tokens;
    lines.push(`tokens: ${t.input} input, ${t.output} output, ${t.cacheRead} cache read, ${t.cacheWrite} cache write`);
    lines.push(`cost: $${r.costUsd.toFixed(4)} over ${r.turns} model turns`);
  }
  if (run.webUi) lines.push(`Web UI: ${run.webUi}`);
  return lines.join('\n');
}
