import type { TaskResult } from '../../core/task/task-types';
import { formatUsd, tokensDetail } from '../../core/text/spending';
import { plural } from '../../core/text/plural';
import type { DrivenRun } from '../run/follow-run';
import { taskFailureLines, taskShapeLines } from './render-task';
import { describeDrivenRun } from './render-run-end';

/** A task `dex task` (or `dex demo`, `dex retry`) drove, as text: how it ended in full, or where to watch it. */
export function describeTaskEnd(run: DrivenRun<TaskResult>): string {
  return describeDrivenRun<TaskResult>('taskWorkflow', run, (end) => {
    const r = end.result;
    const lines: string[] = [];
    if (r?.commit) lines.push(`commit: ${r.commit} on ${r.branch}`);
    if (r?.setup) lines.push(`setup: ${r.setup}`);
    if (r) {
      lines.push(`tokens: ${tokensDetail(r.tokens)}`);
      lines.push(`cost: ${formatUsd(r.costUsd)} over ${plural(r.turns, 'model turn')}`);
      lines.push(...taskShapeLines(r));
      lines.push(...taskFailureLines(r));
    }
    if (end.state !== 'completed') lines.push(`what it did: dex log ${run.workflowId} · what it changed: dex diff ${run.workflowId}`);
    return lines;
  });
}
