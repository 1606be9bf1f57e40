/**
 * `/dex approve|reject|retry` in a comment on an issue or pull request (docs/forge-triggers.md#gates-from-the-forge):
 * from a person with write access, the decision goes to the run that comment is for, through the
 * same validated update `dex approve` sends; dex replies in the thread with what it did. A person
 * without write access is refused with a reply; a bot's command, and a comment with none, do nothing.
 */
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { decisionOf, gateCommandIn, runOfComment } from '../../core/forge/gate-command';
import { decideUpdate } from '../../core/run/definitions';
import { githubPermission, replyOnGithubIssue } from '../../host/forge/github-issues';
import { decisionSaid } from '../commands/signal-commands';
import { forgeRepositoryAt } from '../fleet/forge-repo-check';
import type { ForgeRepository } from '../../core/fleet/repo-locator';
import type { IssueComment } from './github-events';
import { landingOfPull } from './pull-requests';

/** GitHub's roles that may push: they may answer dex's gates and ask it for work. */
export const MAY_DECIDE = new Set(['admin', 'maintain', 'write']);

/** Where a comment's command acts and how dex answers there, once its author may; undefined when the webhook's log line says why not. */
export async function commenterMay(comment: IssueComment, asked: string, env: NodeJS.ProcessEnv): Promise<{ target: ForgeRepository; reply(text: string): Promise<void> } | string> {
  const where = `${comment.owner}/${comment.repo}#${comment.number}`;
  if (comment.bot) return `${where}: ${asked} by ${comment.author}, a bot: ignored`;
  const target = forgeRepositoryAt(comment.repositoryUrl, env);
  if (!target) return `${where}: ${comment.repositoryUrl} names no forge repository dex can work on; ignored`;
  const reply = (text: string) => replyOnGithubIssue(target, comment.number, `@${comment.author}: ${text}`, env);
  const permission = await githubPermission(target, comment.author, env);
  if (MAY_DECIDE.has(permission)) return { target, reply };
  await reply(`\`${asked}\` needs write access to ${comment.owner}/${comment.repo} (you have ${permission}); nothing was done.`);
  return `${where}: ${asked} by ${comment.author} (${permission}): refused`;
}

/** Answers the gate command `comment` holds; the webhook log's line, or undefined when it holds none. */
export async function answerGateCommand(client: Client, comment: IssueComment, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  const command = gateCommandIn(comment.body);
  if (!command) return undefined;
  const where = `${comment.owner}/${comment.repo}#${comment.number}`;
  const asked = `/dex ${command.action}`;
  const may = await commenterMay(comment, asked, env);
  if (typeof may === 'string') return may;
  // On a person's pull request dex took up, its reply there names the run.
  const taken = comment.isPull ? await landingOfPull(may.target, comment.number, comment.description, env) : undefined;
  const run = taken ?? runOfComment(comment.owner, comment.repo, comment.number, comment.isPull, comment.description);
  const decision = decisionOf(command, comment.author, run.taskId);
  if (!decision) {
    const needs = command.action === 'choose' ? 'an attempt: `/dex choose B`' : 'a reason: `/dex reject <why>`';
    await may.reply(`\`${asked}\` needs ${needs}; nothing was done.`);
    return `${where}: ${asked} by ${comment.author} without ${command.action === 'choose' ? 'an attempt' : 'a reason'}: refused`;
  }
  let said: string;
  try {
    said = `${decisionSaid(decision, await client.workflow.getHandle(run.workflowId).executeUpdate(decideUpdate, { args: [decision] }))} of ${run.workflowId}`;
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError) said = `nothing done: ${err.cause?.message ?? err.message}`;
    else if (err instanceof WorkflowNotFoundError) said = `nothing done: no dex run ${run.workflowId} is open here`;
    else throw err;
  }
  await may.reply(`${said}.`);
  return `${where}: ${asked} by ${comment.author}: ${said}`;
}
