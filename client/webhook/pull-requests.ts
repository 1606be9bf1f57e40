/**
 * `@dex <request>` on a pull request a person opened (docs/forge-triggers.md#asking-on-a-pull-request):
 * a run of one task that starts from the pull request's head, puts its commits onto that branch and
 * answers the pull request's reviews as it does on its own; it never merges without a person's
 * approval and never deletes the person's branch. Which run a pull request has is found as for
 * dex's own: its description names the landing, or (a person's) dex's reply that took it up does.
 */
import type { Client } from '@temporalio/client';
import { issueTaskId, requestRunId } from '../../core/forge/issue-run';
import { landingOf } from '../../core/forge/gate-command';
import type { ForgeRepository } from '../../core/fleet/repo-locator';
import { commentsBy, readGithubPull } from '../../host/forge/github-issues';
import { githubLogin } from '../../host/forge/github-reviews';
import { forgePlan } from '../fleet/forge-roadmap-source';
import { PLAN_KINDS } from '../plan-kinds';
import { buildRoadmapInput, forgeWebUi } from '../requests/roadmap-request';
import { roadmapAbout, startMarks } from '../run/run-about';
import { startOnce } from '../run/run-handles';
import type { Settings } from '../settings';
import type { IssueComment } from './github-events';

/** The hidden line in dex's reply that took up a person's pull request: it names the run, as dex's own pull request's description does. */
const landingMarker = (workflowId: string, taskId: string) => `<!-- proposed by dex (landing ${workflowId}/${taskId}) -->`;

/** The run and task pull request `number` is dex's work of: named in its description, else in dex's reply that took it up (the newest). */
export async function landingOfPull(target: ForgeRepository, number: number, description: string, env: NodeJS.ProcessEnv = process.env): Promise<{ workflowId: string; taskId: string } | undefined> {
  const own = landingOf(description);
  if (own) return own;
  const replies = await commentsBy(target, number, await githubLogin(target, env), env);
  return replies.map((body) => landingOf(body)).find((l) => l !== undefined);
}

/** Starts the run of `text`, asked in `comment` on a person's pull request; resolves to the webhook log's line and the reply to post. */
export async function startPullRun(client: Client, comment: IssueComment, text: string, target: ForgeRepository, settings: Settings, env: NodeJS.ProcessEnv = process.env): Promise<{ said: string; reply: string }> {
  const where = `${comment.owner}/${comment.repo}#${comment.number}`;
  const pull = await readGithubPull(target, comment.number, env);
  if (!pull.open) return { said: `${where}: @dex on a closed pull request: nothing started`, reply: 'this pull request is closed; nothing was done.' };
  if (!pull.sameRepository) return { said: `${where}: @dex on a fork's pull request: nothing started`, reply: "dex pushes only to this repository's branches, and this pull request's is a fork's; nothing was done." };
  const workflowId = requestRunId(comment.owner, comment.repo, comment.number, comment.commentId);
  const taskId = issueTaskId(comment.number, comment.commentId);
  const description = [`${comment.author} asked: ${text}`, `On pull request #${comment.number} (${pull.url}), "${pull.title}", whose branch ${pull.head} this work continues:`, pull.body.trim()].filter(Boolean).join('\n\n');
  const task = { id: taskId, title: text.slice(0, 120), description, depends: [], done: false, line: 0 };
  const plan = await forgePlan(target, [task], settings.dexHome, env);
  // The task starts from the pull request's head, and lands back on it.
  const checked = buildRoadmapInput({ roadmap: '', forge: { ...plan, baseBranch: pull.head } }, settings, env);

  const land = checked.input.land!;
  const onto = { number: comment.number, head: pull.head, base: pull.base };
  const input = {
    ...checked.input,
    taskDefaults: { ...checked.input.taskDefaults, fromBranch: pull.head },
    issue: { number: comment.number, url: pull.url },
    land: { ...land, branch: pull.head, pr: { ...land.pr!, profile: 'review' as const, onto } },
    ...forgeWebUi(land, settings, workflowId, env),
  };
  const marks = startMarks({ ...roadmapAbout(input, checked.tasks), title: `#${comment.number}: ${text.slice(0, 80)}` });
  const started = await startOnce(client, workflowId, PLAN_KINDS.roadmap.workflowType, [input], settings.taskQueue, marks);
  if (!started) return { said: `${where}: ${workflowId} started before; nothing started`, reply: `${workflowId} started before; nothing started.` };
  return { said: `${where}: started ${workflowId} on ${pull.head}`, reply: `on it, on \`${pull.head}\`: started ${workflowId}.\n${landingMarker(workflowId, taskId)}` };
}
