import type { RoadmapResult } from '../core/roadmap-types';

/** A roadmap's result as lines: one task a line, then its tokens and cost (for `dex run` and `dex status`). */
export function renderRoadmapResult(result: RoadmapResult): string[] {
  return [
    ...result.tasks.map(
      (t) => `  ${t.id.padEnd(8)} ${t.state.padEnd(10)} ${t.commit ? t.commit.slice(0, 10) : ''}${t.blockedBy ? `blocked by ${t.blockedBy}` : ''}${t.error && !t.blockedBy ? ` ${t.error}` : ''}`,
    ),
    `tokens: ${result.tokens.input} input, ${result.tokens.output} output, ${result.tokens.cacheRead} cache read, ${result.tokens.cacheWrite} cache write`,
    `cost: $${result.costUsd.toFixed(4)} over ${result.runs} workflow run(s)`,
  ];
}
