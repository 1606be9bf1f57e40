import { isCancellation } from '@temporalio/workflow';
import { innermostMessage } from '../../core/run/failure-message';
import { describeReview, type ReviseRequest } from '../../core/forge/review';
import type { FixCiRequest } from '../../core/task/task-types';
import type { PhaseOutcome } from './agent/agent-phase';
import { attemptPhase } from './phase-attempt';
import type { TaskRun } from './task-run';

/** How much of each failing check's log the prompt quotes. */
const EXCERPT_CHARS = 4000;

/**
 * A roadmap's later run on a task's existing branch, for its pull request (docs/landing-through-prs.md#what-happens-to-a-finished-task):
 * one agent phase, `fix-ci` told which checks failed and how their logs end, or `revise` told a
 * person's review (docs/forge-triggers.md#reviews-answered-on-the-same-pr); it is verified and
 * committed as any phase that changes files. The roadmap pushes the commit and waits for CI again.
 */
export async function runBranchPhase(run: TaskRun, request: { fixCi: FixCiRequest } | { revise: ReviseRequest }): Promise<PhaseOutcome> {
  const [phase, attempt, retryContext] = 'fixCi' in request ? ['fix-ci', request.fixCi.round, describeFailures(request.fixCi)] : ['revise', request.revise.round, describeReview(request.revise)];
  try {
    return await attemptPhase({ run, phase, attempt, artifacts: {}, retryContext });
  } catch (err) {
    if (isCancellation(err)) throw err;
    return { kind: 'failed', error: innermostMessage(err) };
  }
}

/** What the fix-CI phase is told: each failing check, where its log is, and the log's end. */
function describeFailures(request: FixCiRequest): string {
  const lines = [`CI failed on ${request.pullRequest} at ${request.sha.slice(0, 12)}: ${request.failures.map((f) => f.name).join(', ')}.`];
  for (const f of request.failures) {
    lines.push('', `Check "${f.name}" failed${f.url ? ` (${f.url})` : ''}; its whole log is stored as ${f.ref}. Its log ends:`, '```', f.excerpt.slice(-EXCERPT_CHARS), '```');
  }
  return lines.join('\n');
}
