/**
 * A review of dex's pull request (docs/forge-triggers.md#reviews-answered-on-the-same-pr): from a person
 * with write access it goes to the roadmap run whose landing opened that pull request (its description
 * names it), which revises the task on the same branch once it is free. A review by dex itself (its
 * replies make reviews on GitHub), by a bot or by a person who may not push starts no work: the
 * webhook's log says why.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { reviewSubmittedSignal } from '../../core/run/definitions';
import type { ReviewSubmitted } from '../../core/forge/review';
import { githubPermission } from '../../host/forge/github-issues';
import { githubLogin } from '../../host/forge/github-reviews';
import { forgeRepositoryAt } from '../fleet/forge-repo-check';
import { MAY_DECIDE } from './gate-commands';
import { landingOfPull } from './pull-requests';
import type { ReviewDelivery } from './github-events';

/** Tells the run a review is for; resolves to the webhook log's line. */
export async function answerReview(client: Client, review: ReviewDelivery, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const where = `${review.owner}/${review.repo}#${review.pr}`;
  const what = `review ${review.reviewId} by ${review.author} (${review.state.replace('_', ' ')})`;
  if (review.bot) return `${where}: ${what}, a bot: ignored`;
  const target = forgeRepositoryAt(review.repositoryUrl, env);
  if (!target) return `${where}: ${review.repositoryUrl} names no forge repository dex can work on; ignored`;
  if (review.author.toLowerCase() === (await githubLogin(target, env)).toLowerCase()) return `${where}: ${what}: dex's own: ignored`;
  const landing = await landingOfPull(target, review.pr, review.description, env);
  if (!landing) return `${where}: ${what} on a pull request dex does not work on: ignored`;
  const permission = await githubPermission(target, review.author, env);
  if (!MAY_DECIDE.has(permission)) return `${where}: ${what}: needs write access (${review.author} has ${permission}): ignored`;
  const { owner, repo, pr, reviewId, state, author } = review;
  if (!(await tellReview(client, landing.workflowId, { owner, repo, pr, taskId: landing.taskId, reviewId, state, author }))) return `${where}: ${what}: no dex run ${landing.workflowId} is open here: ignored`;
  return `${where}: ${what}: told ${landing.workflowId} (task ${landing.taskId})`;
}

/** Signals `reviewSubmitted` to run `workflowId` (a review, or `@dex` asked on its pull request); false when no such run is open. */
export async function tellReview(client: Client, workflowId: string, review: ReviewSubmitted): Promise<boolean> {
  try {
    await client.workflow.getHandle(workflowId).signal(reviewSubmittedSignal, review);
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}
