/**
 * An issue given the trigger label becomes a run (docs/forge-triggers.md): one task, the issue's title
 * and text, on the fleet, landing through a pull request that says `Fixes #N`. Its workflow id is the
 * issue's, and a run of that id never starts twice: a forge that redelivers, or a person who labels
 * the issue again, starts nothing more.
 */
import type { Client } from '@temporalio/client';
import { issueRunId, issueTaskId, requestRunId } from '../../core/forge/issue-run';
import { parseRoadmap, type RoadmapTask } from '../../core/roadmap/roadmap';
import { InvalidInput } from '../../core/run/invalid-input';
import { forgeRepositoryAt } from '../fleet/forge-repo-check';
import { forgePlan } from '../fleet/forge-roadmap-source';
import { PLAN_KINDS } from '../plan-kinds';
import { buildRoadmapInput, forgeWebUi } from '../requests/roadmap-request';
import { roadmapAbout, startMarks } from '../run/run-about';
import { startOnce } from '../run/run-handles';
import type { Settings } from '../settings';
import type { IssueTrigger } from './github-events';

/** A person's `@dex <request>` in a comment on the issue: it asks for this, not the issue itself. */
interface IssueRequest {
  commentId: number;
  text: string;
  by: string;
}

/** The one task of issue `trigger`'s run: the issue, or a request made on it. */
function issueTask(trigger: IssueTrigger, request?: IssueRequest): RoadmapTask {
  const from = `From issue #${trigger.number}${trigger.url ? ` (${trigger.url})` : ''}.`;
  const id = issueTaskId(trigger.number, request?.commentId);
  if (!request) return { id, title: trigger.title, description: [trigger.body.trim(), from].filter(Boolean).join('\n\n'), depends: [], done: false, line: 0 };
  const issue = [`The issue, "${trigger.title}":`, trigger.body.trim()].filter(Boolean).join('\n\n');
  return { id, title: request.text.slice(0, 120), description: [`${request.by} asked: ${request.text}`, issue, from].join('\n\n'), depends: [], done: false, line: 0 };
}

/**
 * The roadmap an issue asks for (docs/forge-triggers.md#a-roadmap-from-an-issue): the task list after a
 * line `/dex roadmap` in its text, each id prefixed with the issue's (`issue-7-T1`, its branch
 * `dex/issue-7-T1`); undefined when it asks for none. A list that is no roadmap throws InvalidInput.
 */
function roadmapInIssue(trigger: IssueTrigger): RoadmapTask[] | undefined {
  const asked = /^\/dex[ \t]+roadmap[ \t]*$/im.exec(trigger.body);
  if (!asked) return undefined;
  const id = (own: string) => `issue-${trigger.number}-${own}`;
  const tasks = parseRoadmap(trigger.body.slice(asked.index + asked[0].length), `issue #${trigger.number}'s roadmap`);
  const from = `Part of issue #${trigger.number}${trigger.url ? ` (${trigger.url})` : ''}, "${trigger.title}".`;
  return tasks.map((t) => ({ ...t, id: id(t.id), depends: t.depends.map(id), description: [t.description, from].filter(Boolean).join('\n\n') }));
}

/** Starts the run of `trigger`'s issue (or of `request` on it) unless it has one; says what it did, in one line for the webhook's log. */
export async function startIssueRun(client: Client, trigger: IssueTrigger, settings: Settings, env: NodeJS.ProcessEnv = process.env, request?: IssueRequest): Promise<string> {
  const issue = `${trigger.owner}/${trigger.repo}#${trigger.number}`;
  const repo = forgeRepositoryAt(trigger.repositoryUrl, env);
  if (!repo) return `${issue}: ${trigger.repositoryUrl} names no forge repository dex can work on; nothing started`;
  const workflowId = request ? requestRunId(trigger.owner, trigger.repo, trigger.number, request.commentId) : issueRunId(trigger.owner, trigger.repo, trigger.number);
  let tasks: RoadmapTask[];
  try {
    tasks = (!request && roadmapInIssue(trigger)) || [issueTask(trigger, request)];
  } catch (err) {
    if (err instanceof InvalidInput) return `${issue}: ${err.message}; nothing started`;
    throw err;
  }
  const forge = await forgePlan(repo, tasks, settings.dexHome, env);
  const checked = buildRoadmapInput({ roadmap: '', forge }, settings, env);
  const input = { ...checked.input, issue: { number: trigger.number, ...(trigger.url ? { url: trigger.url } : {}) }, ...forgeWebUi(checked.input.land, settings, workflowId, env) };
  const marks = startMarks({ ...roadmapAbout(input, checked.tasks), title: `#${trigger.number}: ${trigger.title}` });
  const started = await startOnce(client, workflowId, PLAN_KINDS.roadmap.workflowType, [input], settings.taskQueue, marks);
  return started ? `${issue}: started ${workflowId}` : `${issue}: ${workflowId} started before; nothing started`;
}
