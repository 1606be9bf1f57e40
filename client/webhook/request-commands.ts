/**
 * `@dex <request>` in a comment on an issue (docs/forge-triggers.md#asking-in-a-comment): from a person
 * with write access it starts a run of that request on the issue's repository, one per comment
 * whatever the forge redelivers, and dex replies with the run; from anyone else, a reply and nothing.
 */
import type { Client } from '@temporalio/client';
import { requestIn } from '../../core/forge/issue-run';
import type { Settings } from '../settings';
import { commenterMay } from './gate-commands';
import type { IssueComment } from './github-events';
import { startIssueRun } from './issue-runs';
import { landingOfPull, startPullRun } from './pull-requests';
import { tellReview } from './review-routing';

/** Tells run `landing` of `text`, asked in `comment` on its pull request; says what was done. */
async function askRun(client: Client, comment: IssueComment, landing: { workflowId: string; taskId: string }, text: string): Promise<string> {
  const { owner, repo, number: pr, commentId: reviewId, author } = comment;
  const told = await tellReview(client, landing.workflowId, { owner, repo, pr, taskId: landing.taskId, reviewId, state: 'commented', author, request: text });
  if (!told) return `nothing done: no dex run ${landing.workflowId} is open here`;
  return `on it: told ${landing.workflowId} (task ${landing.taskId}), which takes it up on this branch`;
}

/** Answers the request `comment` makes of `@handle`; the webhook log's line, or undefined when it makes none. */
export async function answerRequest(client: Client, comment: IssueComment, handle: string, settings: Settings, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  const text = requestIn(comment.body, handle);
  if (!text) return undefined;
  const asked = `@${handle}`;
  const may = await commenterMay(comment, asked, env);
  if (typeof may === 'string') return may;
  // On a pull request dex works on already (its own, or a person's it took up), the request goes to that run, as a review would.
  const landing = comment.isPull ? await landingOfPull(may.target, comment.number, comment.description, env) : undefined;
  if (landing) {
    const said = await askRun(client, comment, landing, text);
    await may.reply(`${said}.`);
    return `${comment.owner}/${comment.repo}#${comment.number}: ${asked} by ${comment.author}: ${said}`;
  }
  if (comment.isPull) {
    const { said, reply } = await startPullRun(client, comment, text, may.target, settings, env);
    await may.reply(reply);
    return said;
  }
  const trigger = { repositoryUrl: comment.repositoryUrl, owner: comment.owner, repo: comment.repo, number: comment.number, title: comment.title, body: comment.description };
  const said = await startIssueRun(client, trigger, settings, env, { commentId: comment.commentId, text, by: comment.author });
  await may.reply(said.includes(': started ') ? `on it: ${said.slice(said.indexOf(': started ') + 2)}.` : `${said.slice(said.indexOf(': ') + 2)}.`);
  return said;
}
