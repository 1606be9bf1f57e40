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
import { startPullRun } from './pull-requests';
import { landingOf } from '../../core/forge/gate-command';

/** Answers the request `comment` makes of `@handle`; the webhook log's line, or undefined when it makes none. */
export async function answerRequest(client: Client, comment: IssueComment, handle: string, settings: Settings, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  const text = requestIn(comment.body, handle);
  if (!text) return undefined;
  const asked = `@${handle}`;
  const may = await commenterMay(comment, asked, env);
  if (typeof may === 'string') return may;
  if (comment.isPull && landingOf(comment.description)) {
    await may.reply("this pull request is dex's own: review it, and dex answers the review here (docs/forge-triggers.md#reviews-answered-on-the-same-pr); nothing was done.");
    return `${comment.owner}/${comment.repo}#${comment.number}: ${asked} on dex's own pull request: nothing started`;
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
