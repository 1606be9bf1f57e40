import type { ChecksReport, PullRequestRef } from '../../../core/roadmap/pull-request-types';
import type { LandingContext } from '../landing-types';

/**
 * Puts a task's pull request and its checks on the board, for `dex status`, `dex list` and the Web
 * UI (docs/landing-through-prs.md#what-a-person-sees-while-it-waits): its number and page, each check's state (the ones not
 * reported yet as pending), the flaky ones let through, and what the landing waits for.
 */
export function showChecks(ctx: LandingContext, taskId: string, ref: PullRequestRef, report: ChecksReport, waiting: string | undefined, flaky: string[]): void {
  const before = ctx.board.get(taskId).pullRequest;
  const checks = [...report.checks.map(({ name, state }) => ({ name, state })), ...report.missing.map((name) => ({ name, state: 'pending' as const }))];
  const allFlaky = [...new Set([...(before?.flaky ?? []), ...flaky])];
  ctx.board.update(taskId, {
    pullRequest: { number: ref.number, url: ref.url, sha: report.sha, checks, ...(allFlaky.length ? { flaky: allFlaky } : {}), ...(waiting ? { waiting } : {}) },
  });
  ctx.publish?.();
}
