import { ActivityFailure, isCancellation, workflowInfo } from '@temporalio/workflow';
import { issueStateComment, type IssueState } from '../../core/forge/issue-run';
import { innermostMessage } from '../../core/run/failure-message';
import type { RoadmapInput, RoadmapTaskState } from '../../core/roadmap/roadmap-types';
import { forgeTarget, issueCommentActivities } from './pr/forge';

/**
 * Shows a run that came from a forge issue on that issue (docs/forge-triggers.md#the-state-comment):
 * dex's one comment, edited in place, with the state, the run and its pull request. A comment the
 * forge refuses is a step of the run, never its failure: the work goes on without it.
 */
export async function tellIssue(input: RoadmapInput, tasks: readonly RoadmapTaskState[], state: IssueState['state'], step: (text: string) => void, reason?: string): Promise<void> {
  const pr = input.land?.pr;
  if (!input.issue || !pr) return;
  const { commentOnIssue } = issueCommentActivities(input.taskDefaults.hostQueue);
  const prOf = (t: RoadmapTaskState | undefined) => (t?.pullRequest ? { number: t.pullRequest.number, url: t.pullRequest.url, merged: t.pullRequest.merged !== undefined } : undefined);
  const pullRequest = prOf(tasks.find((t) => t.pullRequest) ?? tasks[0]);
  const costUsd = tasks.reduce((sum, t) => sum + t.costUsd, 0);
  const { workflowId } = workflowInfo();
  // An issue's roadmap (docs/forge-triggers.md#a-roadmap-from-an-issue): every task with its pull request, and the issue closed once all have landed.
  const roadmap = tasks.length > 1 ? { tasks: tasks.map((t) => ({ id: t.id, state: t.state, ...(prOf(t) ? { pullRequest: prOf(t)! } : {}) })) } : pullRequest ? { pullRequest } : {};
  const close = tasks.length > 1 && state === 'completed' && tasks.every((t) => t.state === 'completed');
  const body = issueStateComment({ state, workflowId, ...roadmap, ...(reason ? { reason } : {}), costUsd });
  try {
    await commentOnIssue({ target: forgeTarget(pr), issue: input.issue.number, run: workflowId, body, ...(close ? { close } : {}) }, `issue #${input.issue.number} · ${state}`);
  } catch (err) {
    if (!(err instanceof ActivityFailure) || isCancellation(err)) throw err;
    step(`issue #${input.issue.number}: could not update dex's comment: ${innermostMessage(err)}`);
  }
}
