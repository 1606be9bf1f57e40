import type { RoadmapResult } from '../../core/roadmap/roadmap-types';
import { formatUsd, tokensDetail } from '../../core/text/spending';
import { plural } from '../../core/text/plural';

/** A roadmap's result as lines: one task a line, then each failed task's error and run, the tasks it did not start, then its tokens and cost (for `dex run` and `dex status`). */
export function renderRoadmapResult(result: RoadmapResult): string[] {
  const failed = result.tasks.filter((t) => t.error && !t.blockedBy);
  return [
    ...result.tasks.map(
      (t) => `  ${t.id.padEnd(8)} ${t.state.padEnd(10)} ${t.commit ? t.commit.slice(0, 10) : ''}${t.blockedBy ? `blocked by ${t.blockedBy}` : ''}`.trimEnd(),
    ),
    ...failed.flatMap((t) => [
      `${t.id} ${t.state}: ${t.error}`,
      ...(t.workflowId ? [`  its verify output and worktree: dex status ${t.workflowId} · dex log ${t.workflowId} · dex diff ${t.workflowId}`] : []),
    ]),
    ...(result.notStarted?.length ? [`not started: ${result.notStarted.join(', ')} (--max-tasks; a later \`dex run\` of the roadmap takes them up)`] : []),
    `tokens: ${tokensDetail(result.tokens)}`,
    `cost: ${formatUsd(result.costUsd)} over ${plural(result.runs, 'workflow run')}`,
  ];
}
