import { isCancellation } from '@temporalio/workflow';
import { innermostMessage } from '../../core/run/failure-message';
import type { FixCiRequest } from '../../core/task/task-types';
import type { PhaseOutcome } from './agent/agent-phase';
import { attemptPhase } from './phase-attempt';
import type { TaskRun } from './task-run';

/** How much of each failing check's log the prompt quotes. */
const EXCERPT_CHARS = 4000;

/**
 * A roadmap's fix-CI run on a task's existing branch (docs/landing-through-prs.md#what-happens-to-a-finished-task):
 * one `fix-ci` agent phase told which checks failed on the pull request and how their logs end;
 * it is verified and committed as any phase that changes files. The roadmap pushes the commit and
 * waits for CI again.
 */
export async function runFixCi(run: TaskRun, request: FixCiRequest): Promise<PhaseOutcome> {
  try {
    return await attemptPhase({ run, phase: 'fix-ci', attempt: request.round, artifacts: {}, retryContext: describeFailures(request) });
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
