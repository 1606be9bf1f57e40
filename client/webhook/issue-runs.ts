/**
 * An issue given the trigger label becomes a run (docs/forge-triggers.md): one task, the issue's title
 * and text, on the fleet, landing through a pull request that says `Fixes #N`. Its workflow id is the
 * issue's, and a run of that id never starts twice: a forge that redelivers, or a person who labels
 * the issue again, starts nothing more.
 */
import type { Client } from '@temporalio/client';
import { issueRunId, issueTaskId } from '../../core/forge/issue-run';
import type { RoadmapTask } from '../../core/roadmap/roadmap';
import { forgeRepositoryAt } from '../fleet/forge-repo-check';
import { forgePlan } from '../fleet/forge-roadmap-source';
import { PLAN_KINDS } from '../plan-kinds';
import { buildRoadmapInput } from '../requests/roadmap-request';
import { roadmapAbout, startMarks } from '../run/run-about';
import { startOnce } from '../run/run-handles';
import type { Settings } from '../settings';
import type { IssueTrigger } from './github-events';

/** The one task of issue `trigger`'s run. */
function issueTask(trigger: IssueTrigger): RoadmapTask {
  const from = `From issue #${trigger.number}${trigger.url ? ` (${trigger.url})` : ''}.`;
  return { id: issueTaskId(trigger.number), title: trigger.title, description: [trigger.body.trim(), from].filter(Boolean).join('\n\n'), depends: [], done: false, line: 0 };
}

/** Starts the run of `trigger`'s issue unless it has one; says what it did, in one line for the webhook's log. */
export async function startIssueRun(client: Client, trigger: IssueTrigger, settings: Settings, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const issue = `${trigger.owner}/${trigger.repo}#${trigger.number}`;
  const repo = forgeRepositoryAt(trigger.repositoryUrl, env);
  if (!repo) return `${issue}: ${trigger.repositoryUrl} names no forge repository dex can work on; nothing started`;
  const workflowId = issueRunId(trigger.owner, trigger.repo, trigger.number);
  const forge = await forgePlan(repo, [issueTask(trigger)], settings.dexHome, env);
  const checked = buildRoadmapInput({ roadmap: '', forge }, settings, env);
  const input = { ...checked.input, issue: { number: trigger.number, ...(trigger.url ? { url: trigger.url } : {}) } };
  const marks = startMarks({ ...roadmapAbout(input, checked.tasks), title: `#${trigger.number}: ${trigger.title}` });
  const started = await startOnce(client, workflowId, PLAN_KINDS.roadmap.workflowType, [input], settings.taskQueue, marks);
  return started ? `${issue}: started ${workflowId}` : `${issue}: ${workflowId} started before; nothing started`;
}
