/**
 * Which runs a CI delivery is for (docs/landing-through-prs.md#webhooks): the roadmap run whose pull
 * request of that branch (or, for a delivery that names only a commit, of that commit) dex opened,
 * named in its description (`proposed by dex (landing <run>/<task>)`), asked of the forge with one
 * request; every running roadmap when the forge cannot say (no token here, no such pull request, one
 * dex did not open, the request failed), as before. A delivery then costs one signal, not one per
 * running roadmap.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { landingOf } from '../../core/forge/gate-command';
import { ciChangedSignal } from '../../core/run/definitions';
import { openPullDescriptions, openPullDescriptionsOfCommit } from '../../host/forge/github-issues';
import { forgeRepositoryAt } from '../fleet/forge-repo-check';
import type { CiEvent } from './github-events';
import type { CiChanged } from '../../core/roadmap/pull-request-types';
import { PLAN_KINDS } from '../plan-kinds';

/** Every roadmap run still going: any of them may be waiting on a pull request's checks. */
export const RUNNING_ROADMAPS = `ExecutionStatus="Running" AND WorkflowType="${PLAN_KINDS.roadmap.workflowType}"`;

/**
 * Signals `ciChanged` with `change` to every running roadmap (listed through visibility): a
 * roadmap that is not waiting on that branch or commit ignores it, which costs one workflow task,
 * where knowing which run waits on which branch would need an index of its own
 * (docs/landing-through-prs.md#webhooks). Resolves to how many runs were told.
 */
export async function signalRunningRoadmaps(client: Client, change: CiChanged): Promise<number> {
  let told = 0;
  for await (const run of client.workflow.list({ query: RUNNING_ROADMAPS })) {
    try {
      await client.workflow.getHandle(run.workflowId, run.runId).signal(ciChangedSignal, change);
      told++;
    } catch (err) {
      // Ended since it was listed: nothing waits there any more.
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
  }
  return told;
}

/**
 * The roadmap runs waiting on `event`'s branch, or on its commit when it names no branch (a status on
 * a commit several branches or none point at, a fork's check run), as the forge's open pull requests
 * of it name them; undefined when it cannot say.
 */
async function runsOf(event: CiEvent, env: NodeJS.ProcessEnv): Promise<string[] | undefined> {
  const { branch, sha } = event.change;
  const target = event.repositoryUrl ? forgeRepositoryAt(event.repositoryUrl, env) : undefined;
  if (!target || !env[target.tokenEnv]?.trim()) return undefined;
  const asked = branch ? openPullDescriptions(target, branch, env) : sha ? openPullDescriptionsOfCommit(target, sha, env) : Promise.resolve([]);
  const runs = (await asked.catch(() => [])).map((d) => landingOf(d)?.workflowId).filter((id): id is string => !!id);
  return runs.length ? [...new Set(runs)] : undefined;
}

/** Signals `ciChanged` to the runs `event` is for; resolves to how many were told. */
export async function signalCiChange(client: Client, event: CiEvent, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const runs = await runsOf(event, env);
  if (!runs) return signalRunningRoadmaps(client, event.change);
  let told = 0;
  for (const id of runs) {
    try {
      await client.workflow.getHandle(id).signal(ciChangedSignal, event.change);
      told++;
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err; // ended: nothing waits there any more
    }
  }
  return told;
}
